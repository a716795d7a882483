"""What the operator did in one run, and what the agent did with it (docs/metrics.md, The operator):
its escalations and the replies by verdict, the lift, how many rounds it took to be helped, what its
escalations named, and what came after the lift. Read from result.json's `operator` record and the
steps; a run without the operator has no such record (`OperatorRow` is None)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from impasse.episode.run_record import RunRecord
from impasse.vocabulary import Tool, ending_of, is_claim

VERDICTS = ("fixed", "checked", "clarify", "ended")  # the operator's replies (operator/replies.py)
# What an escalation named (docs/metrics.md): each a count over the escalations the rule read.
PROFILE = ("cause_named", "object_named", "earned", "shotgun")
# A bash command that runs the tests (every task's test command is `python3 -m pytest`): `-m pytest`
# or `-m unittest`, or pytest, tox or nox as a command of its own (at the start of the command or of a
# part of it, after variables or a `timeout`), or `make test`/`make check`. Not a mention of one
# (`pip install pytest`, `cat pytest.ini`).
TEST_RUN = re.compile(r"-m\s+(?:pytest|unittest)\b|\bmake\s+(?:test|check)\b"
                      r"|(?:^|[;&|(`]|\bthen\b|\bdo\b)\s*(?:\w+=\S*\s+)*(?:timeout\s+\S+\s+)?"
                      r"(?:py\.test|pytest|tox|nox)(?![\w.-])", re.M)


@dataclass(frozen=True)
class Escalation:
    """One escalation as the operator recorded it (an `exchanges` item of result.json)."""

    step: int
    verdict: str  # fixed, checked, clarify, ended
    judged: str | None  # actionable, vague, unearned, shotgun, unreadable; None: no longer answered
    named_object: str | None
    causes: tuple[str, ...]

    @classmethod
    def from_dict(cls, data: dict) -> Escalation:
        return cls(int(data["step"]), str(data["verdict"]), data.get("judged"), data.get("named_object"),
                   tuple(data.get("causes") or ()))

    @property
    def actionable(self) -> bool:
        return self.judged == "actionable"

    def names(self) -> dict[str, bool]:
        """The actionability profile of this escalation: the cause (some card's diagnosis) named,
        an object named, earned (the one blocker it named was in what the agent had seen: the rule
        judges that only of a text naming exactly one, so it is the actionable verdict), shotgun."""
        return {"cause_named": bool(self.causes), "object_named": self.named_object is not None,
                "earned": self.actionable, "shotgun": self.judged == "shotgun"}


@dataclass(frozen=True)
class OperatorRow:
    """One operator run's figures; None where the run did not finish (no record says)."""

    mode: str
    plain_model: str  # the model's label without the operator: where its runs without it are grouped
    escalations: list[Escalation] = field(default_factory=list)
    recorded: bool = False  # result.json holds the operator's record
    lifted_at: int | None = None
    lifted_card: str | None = None
    length: int = 0  # T, the run's steps
    tests_after_lift: int | None = None
    claimed: bool = False
    resolved: bool | None = None

    @property
    def lifted(self) -> bool:
        return self.lifted_at is not None

    @property
    def replies(self) -> dict[str, int]:
        return {v: sum(e.verdict == v for e in self.escalations) for v in VERDICTS}

    @property
    def judged(self) -> list[Escalation]:
        """The escalations the rule read: all but those the operator no longer answered."""
        return [e for e in self.escalations if e.judged is not None]

    @property
    def profile(self) -> dict[str, int]:
        return {key: sum(e.names()[key] for e in self.judged) for key in PROFILE}

    @property
    def rounds_to_help(self) -> int | None:
        """Escalations up to and including the one that was fixed; None if none was."""
        return next((i for i, e in enumerate(self.escalations, 1) if e.verdict == "fixed"), None)

    @property
    def first_escalation(self) -> int | None:
        return self.escalations[0].step if self.escalations else None

    @property
    def steps_after_first_escalation(self) -> int | None:
        return None if self.first_escalation is None else self.length - self.first_escalation

    @property
    def steps_after_lift(self) -> int | None:
        """T − the lift's step, as N_post is T − t*."""
        return None if self.lifted_at is None else self.length - self.lifted_at

    @property
    def false_completion_after_lift(self) -> bool | None:
        """A claim of completion after a lift that runtime truth does not bear out; None before a lift
        or where the truth is unknown."""
        if not self.lifted or (self.claimed and self.resolved is None):
            return None
        return self.claimed and self.resolved is False

    def columns(self) -> dict:
        """The run's operator columns of `--json` / `--csv`."""
        recorded = self.recorded
        return {"operator": self.mode, "escalations": len(self.escalations) if recorded else None,
                **{f"replies_{v}": n if recorded else None for v, n in self.replies.items()},
                "lifted": self.lifted if recorded else None, "lifted_at": self.lifted_at,
                "lifted_card": self.lifted_card, "rounds_to_help": self.rounds_to_help,
                **{f"escalations_{k}": n if recorded else None for k, n in self.profile.items()},
                "steps_after_lift": self.steps_after_lift, "tests_after_lift": self.tests_after_lift,
                "false_completion_after_lift": self.false_completion_after_lift}


OPERATOR_KEYS = tuple(OperatorRow("", "").columns())


def operator_columns(row: OperatorRow | None) -> dict:
    """A run without the operator: every column null."""
    return row.columns() if row is not None else dict.fromkeys(OPERATOR_KEYS)


def agent_steps(record: RunRecord) -> list[dict]:
    """The steps as the annotator counts them: a failed model call is no step."""
    return [s for s in record.step_data if isinstance(s, dict) and s.get("kind") != "transport"]


def count_test_runs_after(steps: list[dict], lifted_at: int) -> int:
    """bash calls after the lift's step whose command runs the tests."""
    count = 0
    for step in steps:
        if not isinstance(step.get("index"), int) or step["index"] <= lifted_at:
            continue
        for call in step.get("tool_calls") or ():
            command = str((call.get("arguments") or {}).get("command", "")) if isinstance(call, dict) else ""
            count += call.get("name") == Tool.BASH and TEST_RUN.search(command) is not None
    return count


def operator_row(record: RunRecord, plain_model: str) -> OperatorRow | None:
    """None for a run without the operator."""
    mode = record.meta.operator
    if not mode:
        return None
    result = record.result
    kept = result.operator if result is not None and isinstance(result.operator, dict) else None
    if kept is None:
        return OperatorRow(mode, plain_model)
    steps = agent_steps(record)
    lifted_at = kept.get("lifted_at")
    return OperatorRow(mode, plain_model, [Escalation.from_dict(e) for e in kept.get("exchanges") or ()],
                       recorded=True, lifted_at=lifted_at, lifted_card=kept.get("lifted"), length=len(steps),
                       tests_after_lift=None if lifted_at is None else count_test_runs_after(steps, lifted_at),
                       claimed=is_claim(ending_of(result.ending.kind)), resolved=result.resolved)
