"""The agent loop, in the manner of mini-swe-agent: query the model, carry out its tool calls,
record the step, repeat; the episode ends by an exception that carries how it ended."""

from __future__ import annotations

import time
from dataclasses import dataclass

from impasse.defaults import BUDGET
from impasse.episode.history import WHOLE, History
from impasse.episode.prompts import CONTINUE, SYSTEM
from impasse.episode.records import Observation, Step
from impasse.episode.rundir import RunDir
from impasse.episode.stage_protocol import PROTOCOL, parse_report
from impasse.episode.tools import TOOLS, Executor, format_error, render
from impasse.infra.sandbox import SandboxUnavailable
from impasse.models import ContextExhausted, Model, TransportError
from impasse.models.turns import ModelTurn, ToolCall
from impasse.operator.desk import LiftFailed
from impasse.operator.replies import Verdict
from impasse.vocabulary import TERMINAL_ARGUMENT, TERMINAL_TOOLS, Ending, Gate, Tool

MAX_CONSECUTIVE_FORMAT_ERRORS = 3
MAX_CONSECUTIVE_SPEAK_TURNS = 3  # under the runtime gate, a model that only talks has stalled
RECORDED = "recorded; the runtime decides when the task is over, so continue working"
MARKER_ENDINGS = {"completed": Ending.MARKER_COMPLETED, "blocked": Ending.MARKER_BLOCKED}


@dataclass
class EpisodeEnd:
    """How the episode ended (vocabulary.Ending), in the ending's own words, at which step."""

    kind: Ending
    message: str = ""
    step: int | None = None


class EpisodeOver(Exception):
    def __init__(self, ending: EpisodeEnd) -> None:
        super().__init__(ending.kind)
        self.ending = ending


class Agent:
    def __init__(self, model: Model, executor: Executor, run_dir: RunDir, task_prompt: str,
                 budget: int = BUDGET, gate: Gate = Gate.TOOL, gold=None, duty: bool = False,
                 meter=None, cost_limit: float | None = None, history: History = WHOLE, operator=None) -> None:
        """`gold` is the runtime-gold tracker (needed by the stage duty and the runtime gate); with
        `duty`, the reporting protocol is added to the system prompt. `meter` adds up the run's cost
        (models.pricing.CostMeter); with `cost_limit` (USD) the run ends once the meter reaches it.
        `history` decides what of the conversation the model is sent (episode/history.py). With an
        `operator` (impasse/operator/), an escalation is answered and the episode goes on."""
        self.model = model
        self.executor = executor
        self.run_dir = run_dir
        self.budget = budget
        self.gate = Gate(gate)
        if self.gate == Gate.RUNTIME and gold is None:
            raise ValueError("the runtime gate needs the runtime-gold tracker: only the runtime can end it")
        self.gold = gold
        system = SYSTEM + (PROTOCOL if duty else "")
        self.messages: list[dict] = [{"role": "system", "content": system},
                                     {"role": "user", "content": task_prompt}]
        self.steps = 0
        self.format_errors = 0
        self.speak_turns = 0
        self.meter = meter
        self.cost_limit = cost_limit
        self.history = history
        self.operator = operator

    def run(self) -> EpisodeEnd:
        try:
            while True:
                self.step()
        except EpisodeOver as over:
            return over.ending

    def step(self) -> None:
        if self.steps >= self.budget:
            raise EpisodeOver(EpisodeEnd(Ending.BUDGET_EXHAUSTED, f"{self.budget} steps used", self.steps))
        started, clock = time.time(), time.monotonic()
        gold = self.ask_runtime(self.gold.freeze) if self.gold else None  # frozen before the reply exists
        turn = self.ask_model(started, gold)
        self.steps += 1
        if self.meter is not None:  # counted whatever ends the step: result.json's cost is the whole run's
            self.meter.add(turn.usage)
        observations, ending, infra = self.execute(turn.tool_calls)
        step = Step(self.steps, started, turn.text, turn.tool_calls, observations, turn.usage,
                    round(time.monotonic() - clock, 3), harness_error=infra, gold=gold, reasoning=turn.reasoning)
        self.run_dir.append(step)
        self.remember(turn, observations)
        if self.gold:
            self.gold.observe(observations)
        if infra:
            raise EpisodeOver(EpisodeEnd(Ending.HARNESS_ERROR, infra, self.steps))
        ending = self.gate_ending(turn.text, turn.tool_calls, ending)
        if ending:
            raise EpisodeOver(ending)
        self.count_format_errors(step)
        self.check_cost()

    def ask_model(self, started: float, gold) -> ModelTurn:
        """The model's turn. A provider that says the conversation no longer fits the window ends the
        run as the agent's own exhaustion (scored); any other endpoint failure is a transport error."""
        try:
            return self.model.complete(self.history.view(self.messages), TOOLS)
        except ContextExhausted as err:
            raise EpisodeOver(EpisodeEnd(Ending.CONTEXT_EXHAUSTED, str(err), self.steps)) from None
        except TransportError as err:
            if gold is not None:  # the checkpoint happened; its code is TRANSPORT
                self.run_dir.append(Step(self.steps + 1, started, "", [], [], harness_error=f"transport: {err}",
                                         gold=gold))
            raise EpisodeOver(EpisodeEnd(Ending.TRANSPORT_ERROR, str(err), self.steps)) from None

    def check_cost(self) -> None:
        if self.meter is None:
            return
        spent = self.meter.usd
        if self.cost_limit is not None and spent is not None and spent >= self.cost_limit:
            raise EpisodeOver(EpisodeEnd(Ending.COST_EXHAUSTED, f"${spent:.4f} spent, limit ${self.cost_limit:.4f}",
                                         self.steps))

    def ask_runtime(self, question):
        """The runtime's own checks run in the sandbox too: if it died, the episode ends as an
        infrastructure failure, as it does when a tool call finds it dead."""
        try:
            return question()
        except SandboxUnavailable as err:
            raise EpisodeOver(EpisodeEnd(Ending.HARNESS_ERROR, f"sandbox unavailable: {err}", self.steps)) from None

    def gate_ending(self, text: str, calls: list[ToolCall], tool_ending: EpisodeEnd | None) -> EpisodeEnd | None:
        """Who decides that the episode is over: the tools (B3), a stage marker (B1), the first turn
        without a tool call (B2), or the runtime's own truth (A)."""
        self.speak_turns = 0 if calls else self.speak_turns + 1
        if self.gate == Gate.RUNTIME:
            if self.ask_runtime(self.gold.resolved):
                return EpisodeEnd(Ending.RUNTIME_RESOLVED, "the failing tests pass", self.steps)
            if self.speak_turns >= MAX_CONSECUTIVE_SPEAK_TURNS:
                return EpisodeEnd(Ending.STALL, f"{self.speak_turns} turns without a tool call", self.steps)
            return None
        if tool_ending:
            return tool_ending
        if self.gate == Gate.NO_TOOL_CALL and not calls:
            return EpisodeEnd(Ending.STOPPED, text, self.steps)
        if self.gate == Gate.MARKER and not calls:
            report = parse_report(text)
            if report.value in MARKER_ENDINGS:
                return EpisodeEnd(MARKER_ENDINGS[report.value], text, self.steps)
            if not report.present:
                return EpisodeEnd(Ending.DEAD_END, "a reply without a stage report", self.steps)
        return None

    def execute(self, calls: list[ToolCall]) -> tuple[list[Observation], EpisodeEnd | None, str | None]:
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
            elif call.name in TERMINAL_TOOLS and self.gate == Gate.RUNTIME:  # recorded, not obeyed
                observations.append(Observation(call.id, call.name, RECORDED, None))
            elif call.name == Tool.ESCALATE_TO_HUMAN and self.operator is not None:
                try:
                    answered, ending = self.consult(call)
                except LiftFailed as err:  # the harness's, never the agent's
                    return observations, None, f"the operator's lift failed: {err}"
                observations.append(answered)
            elif call.name in TERMINAL_TOOLS:
                ending = EpisodeEnd(Ending(call.name), call.arguments[TERMINAL_ARGUMENT[call.name]], self.steps)
                observations.append(Observation(call.id, call.name, "ok", None))
            else:
                try:
                    observations.append(self.executor.run(call))
                except SandboxUnavailable as err:  # infrastructure, never shown as command output
                    return observations, None, f"sandbox unavailable: {err}"
        return observations, ending, None

    def consult(self, call: ToolCall) -> tuple[Observation, EpisodeEnd | None]:
        """The operator's reply as the call's observation; after a lift the agent's calls go to the
        fresh environment. An escalation the operator no longer answers ends the episode."""
        reason = call.arguments[TERMINAL_ARGUMENT[Tool.ESCALATE_TO_HUMAN]]
        reply = self.operator.answer(reason, self.seen(), self.steps)
        if reply.verdict == Verdict.ENDED:
            return Observation(call.id, call.name, "ok", None), EpisodeEnd(Ending.ESCALATE_TO_HUMAN, reason, self.steps)
        if reply.executor is not None:
            self.executor = reply.executor
            if self.gold is not None:  # the stage duty's gold goes on where the work is now
                self.gold.env = self.operator.env
        return Observation(call.id, call.name, reply.text, None), None

    def seen(self) -> str:
        """Every observation the agent has had so far, as it read them."""
        return "\n".join(m["content"] for m in self.messages if m["role"] == "tool")

    def remember(self, turn: ModelTurn, observations: list[Observation]) -> None:
        calls = turn.tool_calls
        message: dict = {"role": "assistant", "content": turn.text}
        if calls:
            message["tool_calls"] = [c.to_message() for c in calls]
        if turn.carry:  # what the vendor needs back verbatim (signed thinking blocks)
            message["carry"] = turn.carry
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
            raise EpisodeOver(EpisodeEnd(Ending.HARNESS_ERROR, f"{self.format_errors} consecutive format errors",
                                     self.steps))
