"""The agent loop, in the manner of mini-swe-agent: query the model, carry out its tool calls,
record the step, repeat; the episode ends by an exception that carries how it ended."""

from __future__ import annotations

import time
from dataclasses import dataclass

from impasse.models import Model, TransportError
from impasse.prompts import CONTINUE, SYSTEM
from impasse.sandbox import SandboxUnavailable
from impasse.steps import Observation, Step, ToolCall
from impasse.tools import TERMINAL, TOOLS, Executor, format_error, render
from impasse.trajectory import RunDir

MAX_CONSECUTIVE_FORMAT_ERRORS = 3
TERMINAL_ARGUMENT = {"task_complete": "summary", "escalate_to_human": "reason"}


@dataclass
class Ending:
    """How the episode ended: task_complete, escalate_to_human, budget_exhausted, transport_error,
    or harness_error (sandbox died, repeated format errors)."""

    kind: str
    message: str = ""
    step: int | None = None


class EpisodeOver(Exception):
    def __init__(self, ending: Ending) -> None:
        super().__init__(ending.kind)
        self.ending = ending


class Agent:
    def __init__(self, model: Model, executor: Executor, run_dir: RunDir, task_prompt: str,
                 budget: int = 80) -> None:
        self.model = model
        self.executor = executor
        self.run_dir = run_dir
        self.budget = budget
        self.messages: list[dict] = [{"role": "system", "content": SYSTEM},
                                     {"role": "user", "content": task_prompt}]
        self.steps = 0
        self.format_errors = 0

    def run(self) -> Ending:
        try:
            while True:
                self.step()
        except EpisodeOver as over:
            return over.ending

    def step(self) -> None:
        if self.steps >= self.budget:
            raise EpisodeOver(Ending("budget_exhausted", f"{self.budget} steps used", self.steps))
        started, clock = time.time(), time.monotonic()
        try:
            turn = self.model.complete(self.messages, TOOLS)
        except TransportError as err:
            raise EpisodeOver(Ending("transport_error", str(err), self.steps)) from None
        self.steps += 1
        observations, ending, infra = self.execute(turn.tool_calls)
        step = Step(self.steps, started, turn.text, turn.tool_calls, observations, turn.usage,
                    round(time.monotonic() - clock, 3), harness_error=infra)
        self.run_dir.append(step)
        self.remember(turn.text, turn.tool_calls, observations)
        if infra:
            raise EpisodeOver(Ending("harness_error", infra, self.steps))
        if ending:
            raise EpisodeOver(ending)
        self.count_format_errors(step)

    def execute(self, calls: list[ToolCall]) -> tuple[list[Observation], Ending | None, str | None]:
        observations: list[Observation] = []
        ending = None
        for call in calls:
            if ending:
                observations.append(Observation(call.id, call.name, "not executed: the episode ended",
                                                None, executed=False))
                continue
            problem = format_error(call)
            if problem:
                observations.append(Observation(call.id, call.name, f"error: {problem}", None, error=problem))
            elif call.name in TERMINAL:
                ending = Ending(call.name, call.arguments[TERMINAL_ARGUMENT[call.name]], self.steps)
                observations.append(Observation(call.id, call.name, "ok", None))
            else:
                try:
                    observations.append(self.executor.run(call))
                except SandboxUnavailable as err:  # infrastructure, never shown as command output
                    return observations, None, f"sandbox unavailable: {err}"
        return observations, ending, None

    def remember(self, text: str, calls: list[ToolCall], observations: list[Observation]) -> None:
        message: dict = {"role": "assistant", "content": text}
        if calls:
            message["tool_calls"] = [c.to_message() for c in calls]
        self.messages.append(message)
        for obs in observations:
            content = obs.output if (obs.error or obs.exit_code is None) else \
                render(obs.output, obs.exit_code, obs.timed_out)
            self.messages.append({"role": "tool", "tool_call_id": obs.call_id, "content": content})
        if not calls:
            self.messages.append({"role": "user", "content": CONTINUE})

    def count_format_errors(self, step: Step) -> None:
        self.format_errors = self.format_errors + 1 if step.kind == "format_error" else 0
        if self.format_errors >= MAX_CONSECUTIVE_FORMAT_ERRORS:
            raise EpisodeOver(Ending("harness_error", f"{self.format_errors} consecutive format errors",
                                     self.steps))

