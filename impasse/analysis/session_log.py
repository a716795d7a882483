"""What a session's log says beyond its steps: when each step began, what its model requests used
and cost, where a human spoke, and how the log itself says the session stopped. Filled by
`formats/session_facts.py` for foreign logs and by `incidents.py` for impasse's own runs; every
figure is None where the log does not record it, never 0."""

from __future__ import annotations

from dataclasses import dataclass, field

# How a log can say the session stopped, in its own records (SessionLog.stop).
INTERRUPTED = "interrupted"  # the human pressed stop (Claude Code: `[Request interrupted…`; Codex: turn_aborted)
API_ERROR = "api_error"  # the model's endpoint failed and nothing answered after it
USAGE_LIMIT = "usage_limit"  # the plan's or account's limit was reached (`Limit reached · resets 2pm`)
CONTEXT = "context"  # the conversation outgrew the model's window
MAX_TURNS = "max_turns"  # the agent's own turn or step limit (`error_max_turns`, LimitsExceeded)
CUT_OFF = "cut_off"  # the last reply called a tool and the log holds nothing after it: killed, or still being written
HALTED = "halted"  # the agent stopped itself with an error of its own (a loop detector, a crash it reported)
ERRORED = "errored"  # an error of the harness that ran it ended the session (an Inspect sample's error)
MAX_TOKENS = "max_tokens"  # the last reply reached its output token limit and was cut there (pi's `length`)
STOPS = (INTERRUPTED, API_ERROR, USAGE_LIMIT, CONTEXT, MAX_TURNS, CUT_OFF, HALTED, ERRORED, MAX_TOKENS)


@dataclass(slots=True)
class StepFacts:
    at: float | None = None  # when the step's reply began, in epoch seconds as the log stamps it
    usage: dict | None = None  # the step's model requests, in impasse's token keys (models/pricing.TOKEN_KEYS)
    usd: float | None = None  # what those requests cost, as the log itself records it
    human_after: bool = False  # a human spoke next: the step's words ended a turn handed back to the human
    synthetic: bool = False  # the harness wrote it in the model's place (Claude Code's API-error notices)
    said_after_calls: bool = False  # its words followed its calls: the calls were answered before it spoke

    @property
    def tokens(self) -> int | None:
        if not self.usage:
            return None
        return (self.usage.get("prompt_tokens") or 0) + (self.usage.get("completion_tokens") or 0)


@dataclass(slots=True)
class SessionLog:
    steps: list[StepFacts] = field(default_factory=list)  # one per step, in order; empty when none is recorded
    ended_at: float | None = None  # the log's last timestamp
    stop: str = ""  # one of STOPS when the log says how the session stopped, else ""
    stop_line: str = ""  # the log's own words for it
    total_usd: float | None = None  # the session's cost where the log records only a total (SWE-agent, mini-swe-agent)
    total_tokens: int | None = None


def written_by_harness(log: SessionLog | None, index: int) -> bool:
    """Whether step `index` (1-based) is a notice the harness wrote in the model's place."""
    return bool(log and log.steps) and log.steps[index - 1].synthetic


def turns_log(steps: int, handed: set[int]) -> SessionLog:
    """A log that records no more than where the human spoke: after each step of `handed`."""
    return SessionLog(steps=[StepFacts(human_after=index in handed) for index in range(1, steps + 1)])
