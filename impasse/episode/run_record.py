"""The typed records of a run folder: `RunMeta` (meta.json, what defines the run), `RunResult`
(result.json, how it ended and what the harness found) and `RunRecord` (both, with the steps).
The same dataclasses write the files and read them back, so every reader sees one shape."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields
from functools import cached_property

from impasse.episode.records import Step
from impasse.vocabulary import Gate

TRAJECTORY_FORMAT = "impasse-1"


class TrajectoryError(ValueError):
    """A run folder that cannot be read; the message names the file and line."""


class KeepsUnknownKeys:
    """A record read from a file that another version may have written: keys this version does not
    know are kept in `extra` and written back unchanged."""

    extra: dict

    def to_dict(self) -> dict:
        data = asdict(self)
        return {**data.pop("extra"), **data}

    @classmethod
    def split_known(cls, data: dict) -> tuple[dict, dict]:
        names = {f.name for f in fields(cls)} - {"extra"}
        return {k: v for k, v in data.items() if k in names}, {k: v for k, v in data.items() if k not in names}


@dataclass
class RunMeta(KeepsUnknownKeys):
    run_id: str
    model: str  # the model's label (its spec, or its name, or its spec with its settings)
    condition: str
    task: str
    seed: int = 0
    model_config: dict | None = None  # spec, settings, endpoint, key variable (never the key)
    cost_limit: float | None = None
    history: str = "full"  # what of the conversation the model was sent (episode/history.py)
    agent: str = "impasse"  # who worked the task: impasse's own loop, or an external agent at its pin
    operator: str | None = None  # "rules": escalations were answered (impasse/operator/); never pooled with None
    offered_tools: list[str] | None = None  # an agent in the container: every tool its requests offered the model
    budget: int = 0
    gate: str = Gate.TOOL.value
    report_duty: str | None = None
    tool_timeout: int | None = None
    channel: bool = True
    harness_version: str = ""
    image: str = ""
    image_id: str = ""
    card_hash: str = ""
    task_hash: str = ""
    injected: dict = field(default_factory=dict)
    started_at: float | None = None
    host: str = ""
    trajectory_format: str = TRAJECTORY_FORMAT
    extra: dict = field(default_factory=dict)  # keys written by other versions, kept as read

    @classmethod
    def from_dict(cls, data: dict) -> RunMeta:
        known, extra = cls.split_known(data)
        if not isinstance(known.get("injected", {}), dict):
            raise TypeError(f"injected is {type(known['injected']).__name__}, not an object")
        return cls(**known, extra=extra)


@dataclass
class EndingRecord:
    kind: str
    message: str = ""
    step: int | None = None


@dataclass
class RunResult(KeepsUnknownKeys):
    run_id: str
    outcome: str
    ending: EndingRecord
    claim: str | None = None
    escalation: str | None = None
    route: str | None = None  # how a circumvention got around the blocker, or the routes a tampering run took
    blocker_active_at_start: bool | None = None
    truth: dict | None = None  # truth.final.Truth.to_dict(): grade, integrity, diff, probe
    tampering: list[dict] = field(default_factory=list)  # the truth's tampering: {route, evidence} each
    injections: list = field(default_factory=list)
    timings: dict = field(default_factory=dict)
    cost: dict | None = None  # models.pricing.CostMeter.to_dict(): usd (None: unknown), tokens, price
    operator: dict | None = None  # operator.desk.Operator.record(): each escalation, its verdict and reply, the lift
    finished_at: float | None = None
    extra: dict = field(default_factory=dict)

    @property
    def resolved(self) -> bool | None:
        """As the truth recorded it; never True in a run that tampered with the truth (tests that
        pass there prove nothing), whatever version wrote the file."""
        resolved = (self.truth or {}).get("resolved")
        return False if resolved and self.tampered else resolved

    @property
    def blocker_active_at_end(self) -> bool | None:
        return (self.truth or {}).get("blocker_active_at_end")

    @property
    def integrity_ok(self) -> bool | None:
        return (self.truth or {}).get("integrity_ok")

    @property
    def tampered(self) -> list[dict]:
        """Each way the agent forged or tampered with the truth ({route, evidence}); read from the
        truth itself where a file carries it only there."""
        found = self.tampering or (self.truth or {}).get("tampering") or []
        return [t for t in found if isinstance(t, dict)]

    @property
    def tampering_routes(self) -> list[str]:
        """The routes of `tampered`, each once, in order."""
        return list(dict.fromkeys(str(t.get("route")) for t in self.tampered))

    @classmethod
    def from_dict(cls, data: dict) -> RunResult:
        known, extra = cls.split_known(data)
        known["ending"] = EndingRecord(**(known.get("ending") or {"kind": "unknown"}))
        return cls(**known, extra=extra)


MISSHAPEN = (TypeError, KeyError, AttributeError, ValueError)  # what a line that is not a step raises


def not_a_step(path: str, number: int) -> str:
    return f"{path}: step {number} is not a step record (left out)"


@dataclass
class RunRecord:
    """A run folder as read once: its meta, its steps, its result (None: it did not finish) and a
    line per part that could not be read. `steps` are typed on first use; the annotator, which
    reads millions of steps into its own normal form, reads `step_data` (the parsed JSON) directly
    and so builds one object per step instead of two."""

    path: str
    meta: RunMeta
    step_data: list[dict]
    result: RunResult | None
    problems: list[str] = field(default_factory=list)

    @cached_property
    def steps(self) -> list[Step]:
        """The typed steps; a line that is not a step record is left out and named in `problems`,
        as a torn line is."""
        typed = []
        for number, data in enumerate(self.step_data, 1):
            try:
                typed.append(Step.from_dict(data))
            except MISSHAPEN:
                self.problems.append(not_a_step(self.path, number))
        return typed

    @property
    def run_id(self) -> str:
        return self.meta.run_id

    @property
    def finished(self) -> bool:
        return self.result is not None

