"""The relay as the episode's step clock. An external agent has no step of impasse's: its model
requests are the boundaries. Step N opens when the relay answers a request; it closes when the
next request brings back the results of step N's calls (its observations), or when the run ends.
Closed steps go to `steps.jsonl` in impasse's own `Step` form, fsynced as they happen.

Between steps the runner's hook runs (it reads the runtime sensors and freezes the runtime gold
before the reply exists, as impasse's own loop does); the budget is counted here; and the first
ending (the budget, an escalation or completion the agent called, a failed model) is kept. With the
operator on, an escalation ends the run only when the operator no longer answers it (`settle`); one
it never heard of by the step's end (the agent's own layer refused the call) ends it as called."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

from impasse.agents.agent_calls import AgentCall
from impasse.episode.agent import EpisodeEnd
from impasse.episode.records import Observation, Step
from impasse.episode.rundir import RunDir
from impasse.models.turns import ToolCall
from impasse.vocabulary import TERMINAL_ARGUMENT, TERMINAL_TOOLS, Ending, Tool

BetweenSteps = Callable[[int], "dict | None"]


@dataclass
class OpenStep:
    index: int
    started_at: float
    clock: float
    text: str
    calls: list[ToolCall]  # as recorded, in impasse's names
    wire: list[AgentCall]  # as sent, in the agent's names; their ids join the results
    usage: dict = field(default_factory=dict)
    gold: dict | None = None
    harness_error: str | None = None


class StepClock:
    def __init__(self, run_dir: RunDir, budget: int, between_steps: BetweenSteps | None = None,
                 on_step: Callable[[Step], None] | None = None, answering: bool = False) -> None:
        self.run_dir = run_dir
        self.answering = answering  # the operator answers escalate_to_human (--operator)
        self.pending: list[str] = []  # the open step's escalations the operator has not answered yet
        self.budget = budget
        self.between_steps = between_steps
        self.on_step = on_step
        self.steps = 0  # steps opened (requests answered by the model)
        self.open: OpenStep | None = None
        self.ending: EpisodeEnd | None = None
        self.unwritten: list[Step] = []

    @property
    def over(self) -> bool:
        return self.ending is not None

    def close(self, results: dict[str, tuple[str, int | None]], injected: str | None = None) -> Step | None:
        """The open step, closed with the results the agent sent for its calls (call id → output,
        exit code), to be written to steps.jsonl; `injected`: the fault its calls met, if any."""
        if self.open is None:
            return None
        if self.pending:  # never brought to the operator: as if called without one
            self.end(Ending.ESCALATE_TO_HUMAN, self.pending.pop(0))
        opened, self.open = self.open, None
        by_id = {call.id: call for call in opened.wire}
        observations = []
        for call in opened.calls:
            wire = by_id.get(call.id)
            if wire is not None and wire.id in results:
                output, code = results[wire.id]
                observations.append(Observation(call.id, call.name, output, code, injected=injected))
        step = Step(opened.index, opened.started_at, opened.text, opened.calls, observations, opened.usage,
                    round(time.monotonic() - opened.clock, 3), harness_error=opened.harness_error, gold=opened.gold)
        self.unwritten.append(step)
        if self.on_step:
            self.on_step(step)
        return step

    def write(self) -> None:
        """The closed steps to steps.jsonl, in order. The relay calls this once its reply is out,
        so the fsync runs while the agent carries out the calls, not while it waits."""
        while self.unwritten:
            self.run_dir.append(self.unwritten.pop(0))

    def next_step(self) -> tuple[int, dict | None] | None:
        """Whether another step may begin: its index and the gold frozen for it; None when the
        episode is over (the budget spent, or the hook failed)."""
        if self.ending:
            return None
        if self.steps >= self.budget:
            self.end(Ending.BUDGET_EXHAUSTED, f"{self.budget} steps used")
            return None
        index = self.steps + 1
        try:
            gold = self.between_steps(index) if self.between_steps else None
        except Exception as err:  # noqa: BLE001 - the runtime's own check failed: infrastructure, not behaviour
            self.end(Ending.HARNESS_ERROR, f"between steps: {type(err).__name__}: {err}")
            return None
        return index, gold

    def begin(self, index: int, started_at: float, clock: float, text: str, calls: list[ToolCall],
              wire: list[AgentCall], usage: dict, gold: dict | None) -> None:
        self.steps = index
        self.open = OpenStep(index, started_at, clock, text, calls, wire, usage, gold)
        for call in calls:
            if call.name == Tool.ESCALATE_TO_HUMAN and self.answering and self.ending is None:
                self.pending.append(str((call.arguments or {}).get(TERMINAL_ARGUMENT[call.name], "")))
                continue
            if call.name in TERMINAL_TOOLS and self.ending is None:
                argument = TERMINAL_ARGUMENT[call.name]
                self.end(Ending(call.name), str((call.arguments or {}).get(argument, "")))
                break

    def settle(self, reason: str | None = None) -> bool:
        """An escalation of the open step brought to the operator (None: the first): False if there is
        none with that text."""
        if not self.pending or (reason is not None and reason not in self.pending):
            return False
        self.pending.remove(self.pending[0] if reason is None else reason)
        return True

    def fail(self, index: int, started_at: float, gold: dict | None, kind: Ending, message: str) -> None:
        """The model could not answer: the episode ends; a checkpoint that froze its gold is recorded
        (its code is TRANSPORT), as impasse's own loop records it."""
        if gold is not None:
            self.unwritten.append(Step(index, started_at, "", [], [], harness_error=f"transport: {message}", gold=gold))
        self.end(kind, message)

    def end(self, kind: Ending, message: str) -> None:
        if self.ending is None:
            self.ending = EpisodeEnd(kind, message, self.steps)
