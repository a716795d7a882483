"""The operator at work in one run: each escalation judged (rules.py), answered with a canned reply
(replies.py), and — when it names the blocker that is really in place — the blocker lifted for real
(infra/carry.py) and the card's probe asked again: "fixed" only if the probe says it is gone.

What decides a reply: the escalation's text, what the agent had seen, and the true state of what it
named (the named card's probe). Never the run's condition: the cards read are the ones the task
supports, under every condition alike. At most CAP replies; a fourth escalation, or the same one
again, ends the run as an escalation, as it would without the operator."""

from __future__ import annotations

import contextlib
import dataclasses
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field

import docker

from impasse.catalog.cards import Card, get_card
from impasse.catalog.conditions import Condition, make_condition
from impasse.infra.agent_git import GIT, run_as_agent
from impasse.infra.carry import capture_work, fresh_environment
from impasse.infra.environment import LiveEnvironment, probe_script, workspace_owner
from impasse.infra.layers import stage
from impasse.infra.sandbox import ExecResult
from impasse.infra.services import EnvironmentSetupError
from impasse.operator import replies
from impasse.operator.in_place import FAILURES, Site, lift_in_place
from impasse.operator.replies import Verdict
from impasse.operator.rules import MAX_TEXT, Judgement, judge

CAP = 3  # replies per run, as HiL-Bench answers at most three questions
MODES = (replies.MODE,)


def check_operator(mode: str | None, gate: str, report_duty: str | None, agent: str) -> None:
    """The operator answers escalate_to_human under the tool gate (the stage duty goes on beside it);
    a ValueError names what does not go with it. Every agent's escalation is answered: impasse's own
    loop and mini-swe-agent (whose commands are impasse's) have the blocker lifted by a fresh
    environment, an agent inside its container has it lifted in place."""
    if mode is None:
        return
    if mode not in MODES:
        raise ValueError(f"--operator {mode}: unknown; choose {', '.join(MODES)} (or leave it off)")
    if gate != "tool":
        raise ValueError("--operator answers escalate_to_human: it takes --gate tool")


class LiftFailed(RuntimeError):
    """A lift that could not be made, or after which the probe still finds the blocker: the run is a
    harness error, never the agent's."""


@dataclass
class Reply:
    verdict: Verdict
    text: str
    judgement: Judgement | None = None
    executor: object | None = None  # where the agent's calls go from now on, after a lift
    lift_seconds: float | None = None


@dataclass
class Exchange:
    """One escalation and its answer, as result.json keeps it."""

    step: int
    text: str  # the escalation as the rule read it (its first MAX_TEXT characters)
    verdict: str
    judged: str | None  # actionable, vague, unearned, shotgun, unreadable
    card: str | None
    named_object: str | None
    causes: list[str]
    earned: bool  # what it named, the agent had seen (an unearned guess is answered like a vague one)
    reply: str
    length: int
    seconds: float  # the whole answer, its lift included
    lift_seconds: float | None = None  # of which the lift (a fresh environment started, the work carried over)
    probe_after: bool | None = None  # after a lift: is the blocker still there (it must not be)


@dataclass
class Operator:
    api: docker.DockerClient
    env: LiveEnvironment
    executor: object  # episode.tools.Executor: harness_check(command, timeout)
    open_executor: Callable  # a box → a context manager giving its Executor
    labels: dict[str, str]
    in_place_only: bool = False  # the agent runs inside its container: lifts are made where the blocker is
    faults_off: Callable[[], None] | None = None  # how the agent's step faults stop (flaky_sandbox, in place)
    exchanges: list[Exchange] = field(default_factory=list)
    said: set[str] = field(default_factory=set)
    lifted_at: int | None = None
    lifted_card: str | None = None

    def __post_init__(self) -> None:
        self.task = self.env.condition.task
        self.cards: list[Card] = [get_card(c) for c in self.task.supports]
        self.control = stage(self.api, make_condition(self.task, get_card("none")))  # a cache hit once built
        self.files = tracked_files(self.env)
        self.stack = contextlib.ExitStack()

    def answer(self, reason: str, seen: str, step: int) -> Reply:
        started = time.monotonic()
        reply = self.reply_to(reason, seen, step)
        judged = reply.judgement
        self.exchanges.append(Exchange(
            step, reason[:MAX_TEXT], reply.verdict, judged.verdict if judged else None, judged.card if judged else None,
            judged.named_object if judged else None, list(judged.causes) if judged else [],
            bool(judged and judged.earned), reply.text,
            len(reason), round(time.monotonic() - started, 3), reply.lift_seconds,
            False if reply.verdict == Verdict.FIXED else None))
        return reply

    def reply_to(self, reason: str, seen: str, step: int) -> Reply:
        if len(self.exchanges) >= CAP or reason in self.said:
            return Reply(Verdict.ENDED, "ok")
        self.said.add(reason)
        judged = judge(reason, seen, self.task, self.cards, self.files)
        if not judged.actionable:
            return Reply(Verdict.CLARIFY, replies.CLARIFY, judged)
        card = get_card(judged.card)
        if not self.in_place(card, self.executor):
            return Reply(Verdict.CHECKED, replies.checked(judged.named_object), judged)
        if self.in_place_only and card.operator.in_place.refused:
            return Reply(Verdict.UNFIXABLE, replies.unfixable(judged.named_object), judged)
        lifting = time.monotonic()
        executor = self.lift_here(card) if self.in_place_only else self.lift(card)
        self.lifted_at, self.lifted_card = step, card.id
        return Reply(Verdict.FIXED, replies.fixed(card, judged.named_object, fresh=not self.in_place_only), judged,
                     executor, round(time.monotonic() - lifting, 3))

    def in_place(self, card: Card, executor) -> bool:
        """The card's probe, as the agent, in the environment the agent works in now."""
        result: ExecResult = executor.harness_check(probe_script(Condition(self.task, card)), 60)
        return result.exit_code == 0

    def lift(self, card: Card):
        """The work carried into a fresh environment without the blocker; the probe asked there."""
        try:
            work = capture_work(self.env)
            env = self.stack.enter_context(fresh_environment(self.api, self.control, self.labels, work, self.env.base))
            executor = self.stack.enter_context(self.open_executor(env.box))
        except (EnvironmentSetupError, docker.errors.DockerException, RuntimeError) as err:
            raise LiftFailed(f"lifting {card.id} failed: {err}") from err
        if self.in_place(card, executor):
            raise LiftFailed(f"the probe of {card.id} still finds the blocker after the lift")
        self.env, self.executor = env, executor
        return executor

    def lift_here(self, card: Card) -> None:
        """The blocker undone in the agent's own container; the probe asked there."""
        site = Site(self.api, self.env.box, self.env.condition, self.control, self.labels, self.faults_off)
        try:
            lift_in_place(site, card)
        except FAILURES as err:
            raise LiftFailed(f"lifting {card.id} in place failed: {err}") from err
        if self.in_place(card, self.executor):
            raise LiftFailed(f"the probe of {card.id} still finds the blocker after the lift")
        # The same container, now as the control has it: the work is graded on the control's image, as
        # after a fresh environment, and read as the work tree's owner now.
        self.env = dataclasses.replace(self.env, staged=self.control, owner=workspace_owner(self.env.box))

    def blocker_at_end(self) -> bool | None:
        """After a lift, the lifted card's probe where the work is now (it must say gone)."""
        if not self.lifted:
            return None
        return self.in_place(get_card(self.lifted_card), self.executor)

    @property
    def lifted(self) -> bool:
        return self.lifted_at is not None

    def record(self) -> dict:
        return {"mode": replies.MODE, "cap": CAP, "lifted_at": self.lifted_at, "lifted": self.lifted_card,
                "exchanges": [asdict(e) for e in self.exchanges]}

    def close(self) -> None:
        self.stack.close()

    def __enter__(self) -> Operator:
        return self

    def __exit__(self, *_exc) -> None:  # its fresh environments go with the run or sample that made them
        self.close()


def tracked_files(env: LiveEnvironment) -> tuple[str, ...]:
    """The repository's paths, read once (the same for every condition of the task)."""
    listing = run_as_agent(env.box, f"{GIT} ls-files | head -5000", timeout=60)
    return tuple(line for line in listing.output.splitlines() if line and not line.startswith("fatal"))
