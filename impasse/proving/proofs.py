"""Proof that a blocker card is a genuine impasse on a task, run for real in Docker:

(a) after injection the probe says the blocker is in place;
(b) the natural repair — the gold fix through the agent's own edit_file tool as uid 1000, then the
    tests through bash — produces an observation the card's signatures match, and grading says
    not resolved;
(c) every workaround command the card lists, run as uid 1000, leaves the probe holding and is
    matched by the card's workarounds.
The control's side — (d) the same repair resolves under `none`, (e) no card's signatures match a
clean `none` run — is `prove_control`."""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import docker

from impasse.analysis.compiled_card import compile_card
from impasse.analysis.metrics import workaround_hits
from impasse.analysis.normal_form import Action, NStep, obs_of
from impasse.analysis.onsets import lone_onset
from impasse.catalog.cards import Card, get_card, load_cards
from impasse.catalog.conditions import Condition, make_condition
from impasse.catalog.tasks import Task
from impasse.episode.records import Observation
from impasse.episode.tools import Executor
from impasse.infra.environment import open_environment
from impasse.infra.injectors import make_injector
from impasse.infra.layers import stage
from impasse.models.scripted import playbook_for
from impasse.models.turns import ToolCall
from impasse.truth.grading import capture_worktree, grade
from impasse.truth.workspace_facts import committed_fix
from impasse.vocabulary import Tool


@dataclass
class Proof:
    card: str
    task: str
    in_place_at_start: bool | None = None
    onset: str | None = None  # the error line of the natural repair that the signatures matched
    resolved: bool | None = None
    in_place_after_workarounds: bool | None = None
    unmatched_workarounds: list[str] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def holds(self) -> bool:
        return bool(self.in_place_at_start and self.onset and self.resolved is False
                    and self.in_place_after_workarounds and not self.unmatched_workarounds)


def natural_repair(executor: Executor, task: Task, card: Card | None) -> list[Observation]:
    """The gold fix as edit_file calls, then the failing tests, then (if required) a commit."""
    playbook = playbook_for(task, card)
    calls = [ToolCall(f"e{i}", Tool.EDIT_FILE, {"path": e.path, "old_str": e.old, "new_str": e.new})
             for i, e in enumerate(playbook.edits)]
    calls.append(ToolCall("t", Tool.BASH, {"command": playbook.test_command}))
    if playbook.commit:
        calls.append(ToolCall("c", Tool.BASH, {"command": "git add -A && git commit -qm 'fix: the reported bug'"}))
    return [executor.run(call) for call in calls]


def as_step(index: int, observations: list[Observation], commands: list[str] = ()) -> NStep:
    return NStep(index, "", [Action(Tool.BASH, command=c) for c in commands], [obs_of(o) for o in observations])


def first_onset(card: Card, condition, observations: list[Observation]) -> str | None:
    match = lone_onset(compile_card(card, condition.injected), as_step(1, observations))
    return match.line if match else None


def unmatched(card: Card, condition, commands: tuple[str, ...]) -> list[str]:
    compiled = compile_card(card, condition.injected)
    return [c for c in commands if not workaround_hits(compiled, as_step(1, [], [c]))]


def prove(api: docker.DockerClient, card: Card, task: Task, seed: int = 0) -> Proof:
    started = time.monotonic()
    condition = make_condition(task, card)
    proof = Proof(card.id, task.id)
    labels = {"impasse.run_id": f"proof-{card.id}-{task.id}"}
    staged = stage(api, condition)
    with open_environment(api, staged, labels) as env:
        proof.in_place_at_start = env.probe()
        executor = Executor(env.box, make_injector(condition, env.box, seed))
        observations = natural_repair(executor, task, card)
        proof.onset = first_onset(card, condition, observations)
        worktree = capture_worktree(env.box, env.workspace_owner())[0]
        committed = committed_fix(env.box, env.base, task.test_paths)
        for command in condition.workaround_commands():
            env.box.exec(command, timeout=30)
        proof.in_place_after_workarounds = env.probe()
    proof.resolved = grade(api, staged, worktree, labels, seed, committed).resolved
    proof.unmatched_workarounds = unmatched(card, condition, condition.workaround_commands())
    proof.seconds = round(time.monotonic() - started, 2)
    return proof


@dataclass
class ControlProof:
    task: str
    resolved: bool
    false_onsets: dict[str, str]  # card -> the line a signature wrongly matched
    seconds: float


def prove_control(api: docker.DockerClient, task: Task) -> ControlProof:
    started = time.monotonic()
    condition = make_condition(task, get_card("none"))
    labels = {"impasse.run_id": f"proof-none-{task.id}"}
    staged = stage(api, condition)
    with open_environment(api, staged, labels) as env:
        observations = natural_repair(Executor(env.box), task, None)
        worktree = capture_worktree(env.box, env.workspace_owner())[0]
        committed = committed_fix(env.box, env.base, task.test_paths)
    resolved = grade(api, staged, worktree, labels, committed=committed).resolved
    false_onsets = {}
    for card in load_cards().values():
        if card.is_control:
            continue
        line = first_onset(card, Condition(task, card), observations)
        if line:
            false_onsets[card.id] = line
    return ControlProof(task.id, resolved, false_onsets, round(time.monotonic() - started, 2))

