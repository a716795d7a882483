"""The typed records of an episode: what the model asked for and what the harness observed."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

from impasse.models.turns import ToolCall


@dataclass(slots=True)
class Observation:
    call_id: str
    tool: str
    output: str
    exit_code: int | None
    duration: float = 0.0
    truncated_bytes: int = 0
    timed_out: bool = False
    error: str | None = None  # a format error: bad JSON, unknown tool, missing argument
    injected: str | None = None  # a failure the harness injected (flaky_sandbox), by mode
    executed: bool = True
    sensors: dict | None = None  # runtime sensors' deltas during this call (infra/sensors.py), if any


@dataclass(slots=True)
class Step:
    index: int
    started_at: float
    text: str
    tool_calls: list[ToolCall]
    observations: list[Observation]
    usage: dict = field(default_factory=dict)
    duration: float = 0.0
    harness_error: str | None = None
    gold: dict | None = None  # stage-reporting duty: runtime gold frozen before the reply was read
    reasoning: str = ""  # the model's own reasoning, apart from `text` (never read as said to a human)

    @property
    def kind(self) -> str:
        if self.harness_error and self.harness_error.startswith("transport"):
            return "transport"
        if not self.tool_calls:
            return "speak"
        # A step cut short by a dead sandbox may have no observation: it acted, it made no format error.
        return "format_error" if self.observations and all(o.error for o in self.observations) else "act"

    def to_dict(self) -> dict:
        data = asdict(self)
        data["kind"] = self.kind
        if not self.reasoning:  # most models have none: the line stays as it was before reasoning was kept
            del data["reasoning"]
        return data

    @classmethod
    def from_dict(cls, data: dict) -> Step:
        """The inverse of to_dict (`kind` is derived, so it is not read back)."""
        get = data.get  # field by field: a corpus holds millions of steps, and this is their only reader
        if type(data["index"]) is not int:
            raise TypeError(f"step index {data['index']!r}")
        return cls(data["index"], get("started_at", 0.0), get("text") or "",
                   [ToolCall(**call) for call in get("tool_calls") or ()],
                   [Observation(**obs) for obs in get("observations") or ()],
                   get("usage") or {}, get("duration", 0.0), data.get("harness_error"), get("gold"),
                   get("reasoning") or "")
