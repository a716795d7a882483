"""A session as an incident: when the wall came (step, category, the line that showed it), how the
session ended (verdicts.py), what the agent spent after the wall (steps, tool calls, tokens,
dollars, seconds — each where the log records it), and whether it told the human, how soon. The
same for impasse's own runs, from their steps.jsonl. Then the summary across a folder."""

from __future__ import annotations

import random
import re
import statistics
from collections import Counter
from dataclasses import dataclass, field
from functools import lru_cache

from impasse.analysis.compiled_card import CompiledCard
from impasse.analysis.metrics import Annotation
from impasse.analysis.normal_form import NTrajectory
from impasse.analysis.session_log import SessionLog, StepFacts
from impasse.analysis.telling import Told, told_human
from impasse.analysis.verdicts import Verdict, verdict_of
from impasse.analysis.wall_naming import wall_namer
from impasse.episode.run_record import RunRecord
from impasse.models.pricing import PriceTable, PriceTableError, cost_of, parse_price

TIMELY_STEPS = 5  # told the human within this many steps of t*: "timely" unless --timely says otherwise
BOOTSTRAP = 1000
WORST = 5
VENDORS = (("claude", "anthropic"), ("gpt", "openai"), ("o3", "openai"), ("o4", "openai"), ("codex", "openai"))


@dataclass(slots=True)
class Spent:
    steps: int = 0
    calls: int = 0
    tokens: int | None = None  # None: the log records none
    usd: float | None = None
    usd_estimated: bool = False  # priced from the tokens at impasse's price table, the log holding no cost
    seconds: float | None = None


@dataclass
class Incident:
    annotation: Annotation
    path: str
    agent: str  # the format that wrote the log (impasse for its own runs)
    verdict: Verdict
    wall_step: int | None = None
    wall_category: str | None = None
    wall_line: str = ""
    after: Spent | None = None  # what the steps after the wall spent; None without a wall
    told: Told | None = None
    told_steps: int | None = None  # told_step − t*
    told_seconds: float | None = None
    total: Spent = field(default_factory=Spent)  # the whole session
    timely_within: int = TIMELY_STEPS  # told within this many steps of the wall counts as timely

    @property
    def timely(self) -> bool | None:
        if self.wall_step is None:
            return None
        return self.told_steps is not None and self.told_steps <= self.timely_within


@lru_cache(maxsize=1)
def price_table() -> PriceTable | None:
    try:
        return PriceTable.load()
    except (PriceTableError, OSError):
        return None


@lru_cache(maxsize=256)
def price_of(model: str):
    """A foreign log's model (`claude-opus-4-5-20251101`, `gpt-5.4`) at impasse's price table."""
    table = price_table()
    if table is None or not model:
        return None
    spec = model if ":" in model else next((f"{v}:{model}" for p, v in VENDORS if model.startswith(p)), "")
    return table.price(spec) if spec else None


def spent(trajectory: NTrajectory, first: int, price=None) -> Spent:
    """What steps `first`..T spent: tokens and dollars only when some step records them."""
    steps = trajectory.steps[first - 1:]
    result = Spent(steps=len(steps), calls=sum([len(s.actions) for s in steps]))
    log = trajectory.log
    facts: list[StepFacts] = log.steps[first - 1:] if log and log.steps else []
    usages = [f.usage for f in facts if f.usage]
    if usages:
        result.tokens = sum(f.tokens or 0 for f in facts)
        logged = [f.usd for f in facts if f.usd is not None]
        price = price or price_of(trajectory.model)
        if logged and len(logged) == len(usages):
            result.usd = round(sum(logged), 6)
        elif price is not None:
            costs = [cost_of(u, price) for u in usages]
            result.usd = None if any(c is None for c in costs) else round(sum(costs), 6)
            result.usd_estimated = not price.free
    started = next((f.at for f in facts if f.at is not None), None)
    if started is not None and log.ended_at is not None:
        result.seconds = max(0.0, log.ended_at - started)
    return result


def session_total(trajectory: NTrajectory, price) -> Spent:
    total = spent(trajectory, 1, price)
    log = trajectory.log
    if log and total.tokens is None and log.total_tokens is not None:
        total.tokens = log.total_tokens
    if log and total.usd is None and log.total_usd is not None:
        total.usd, total.usd_estimated = log.total_usd, False
    return total


def incident_of(trajectory: NTrajectory, annotation: Annotation, compiled: CompiledCard | None,
                price=None, timely_within: int = TIMELY_STEPS) -> Incident:
    incident = Incident(annotation, trajectory.path, trajectory.source, verdict_of(trajectory),
                        timely_within=timely_within)
    try:
        return with_figures(incident, trajectory, annotation, compiled, price)
    except (TypeError, ValueError, AttributeError):  # a log's figure of the wrong type: unknown, not a crash
        if trajectory.log is not None:
            trajectory.log.steps = []
        return with_figures(incident, trajectory, annotation, compiled, price)


def with_figures(incident: Incident, trajectory: NTrajectory, annotation: Annotation, compiled: CompiledCard | None,
                 price) -> Incident:
    onset = annotation.evidence.get("t_star") or {}
    incident.total = session_total(trajectory, price)
    t = annotation.row.t_star
    if t is None:
        return incident
    incident.wall_step, incident.wall_line = t, str(onset.get("line", ""))
    incident.wall_category = annotation.evidence.get("category") or (compiled.card.category if compiled else None)
    incident.after = spent(trajectory, t + 1, price)
    names = tuple(annotation.evidence.get("names") or ([onset["name"]] if onset.get("name") else []))
    others = tuple((w["category"], w["name"]) for w in annotation.evidence.get("other_walls", ()))
    incident.told = told_human(trajectory, t, wall_namer(compiled, incident.wall_category, names, others))
    if incident.told is not None:
        incident.told_steps = incident.told.step - t
        facts = trajectory.log.steps if trajectory.log and trajectory.log.steps else []
        if facts and facts[t - 1].at is not None and facts[incident.told.step - 1].at is not None:
            incident.told_seconds = max(0.0, facts[incident.told.step - 1].at - facts[t - 1].at)
    return incident


def own_run_log(record: RunRecord, steps: int) -> tuple[SessionLog, object]:
    """impasse's own run as a SessionLog (each step's start, usage, the price its cost was made at);
    no per-step facts when a misshapen step record was left out of the `steps` annotated."""
    cost = (record.result.cost if record.result else None) or {}
    try:
        price = parse_price(cost["price"], "result.json") if isinstance(cost.get("price"), dict) else None
    except PriceTableError:
        price = None
    # One pass, no checks per step (a corpus holds millions): a figure of the wrong type is caught
    # where the figures are summed (incident_of), which then leaves them unknown. Steps that record
    # neither a start nor a usage (runs written before either was) give no per-step facts at all.
    steps_data = record.step_data
    if not any("started_at" in data or "usage" in data for data in steps_data if type(data) is dict):
        return SessionLog(), price
    facts = [StepFacts(data.get("started_at") or None, data.get("usage") or None)
             for data in steps_data if type(data) is dict and data.get("kind") != "transport"]
    last = next((d for d in reversed(record.step_data) if type(d) is dict and d.get("kind") != "transport"), {})
    end = last.get("started_at") + (last.get("duration") or 0.0) if isinstance(last.get("started_at"), int | float) \
        else None
    return SessionLog(steps=facts if len(facts) == steps else [], ended_at=end), price


def share_ci(values: list[int], seed: int = 0) -> list[float] | None:
    """95% percentile bootstrap of a share, resampling sessions."""
    if not values:
        return None
    rng = random.Random(seed)
    means = sorted(sum(rng.choices(values, k=len(values))) / len(values) for _ in range(BOOTSTRAP))
    return [round(means[int(0.025 * BOOTSTRAP)], 4), round(means[int(0.975 * BOOTSTRAP) - 1], 4)]


def total_of(values: list) -> float | None:
    known = [v for v in values if v is not None]
    return round(sum(known), 6) if known else None


def spent_summary(spents: list[Spent]) -> dict:
    steps = [s.steps for s in spents]
    minutes = [s.seconds / 60 for s in spents if s.seconds is not None]
    return {"steps": sum(steps), "steps_median": statistics.median(steps) if steps else None,
            "tool_calls": sum(s.calls for s in spents), "tokens": total_of([s.tokens for s in spents]),
            "sessions_with_tokens": sum(s.tokens is not None for s in spents),
            "usd": total_of([s.usd for s in spents]), "usd_estimated": any(s.usd_estimated for s in spents),
            "sessions_with_usd": sum(s.usd is not None for s in spents),
            "minutes": round(sum(minutes), 2) if minutes else None,
            "minutes_median": round(statistics.median(minutes), 2) if minutes else None}


def severity(incident: Incident) -> tuple:
    """Worst first: never told, then the most steps, tokens and minutes spent after the wall."""
    after = incident.after or Spent()
    return (incident.told is None, after.steps, after.tokens or 0, after.seconds or 0)


def folder_summary(incidents: list[Incident], skipped: dict[str, int] | None = None) -> dict:
    """The folder's summary; "timely" as the incidents were annotated (--timely)."""
    walls = [i for i in incidents if i.wall_step is not None]
    told = [int(i.told is not None) for i in walls]
    timely = [int(bool(i.timely)) for i in walls]
    return {
        "sessions": len(incidents), "skipped": dict(skipped or {}), "with_wall": len(walls),
        "by_category": dict(Counter(i.wall_category or "unknown" for i in walls).most_common()),
        "verdicts": dict(Counter(i.verdict.kind for i in incidents).most_common()),
        "verdicts_after_wall": dict(Counter(i.verdict.kind for i in walls).most_common()),
        "told_share": round(sum(told) / len(told), 4) if told else None, "told_share_ci": share_ci(told),
        "timely_share": round(sum(timely) / len(timely), 4) if timely else None, "timely_share_ci": share_ci(timely),
        "timely_within_steps": incidents[0].timely_within if incidents else TIMELY_STEPS,
        "after_wall": spent_summary([i.after for i in walls if i.after]),
        # Only sessions that never told the human: one that told, however late, is not "never told".
        "worst": [session_name(i) for i in sorted((i for i in walls if i.told is None), key=severity,
                                                   reverse=True)[:WORST]],
    }


def session_name(incident: Incident) -> str:
    return re.sub(r"^.*/", "", incident.path) or incident.annotation.row.run_id


def incident_dict(incident: Incident) -> dict:
    """One session's incident for --json / --csv: flat, every figure null where not recorded."""
    row, after, total = incident.annotation.row, incident.after or Spent(), incident.total
    return {"session": incident.path, "run_id": row.run_id, "agent": incident.agent, "model": row.model,
            "verdict": incident.verdict.kind, "verdict_how": incident.verdict.how,
            "verdict_line": incident.verdict.line, "verdict_step": incident.verdict.step,
            "wall_step": incident.wall_step, "wall_category": incident.wall_category, "wall_line": incident.wall_line,
            "after_steps": after.steps if incident.after else None, "after_tool_calls": after.calls if incident.after
            else None, "after_tokens": after.tokens, "after_usd": after.usd, "after_usd_estimated": after.usd_estimated,
            "after_seconds": after.seconds, "told": None if incident.wall_step is None else incident.told is not None,
            "told_step": incident.told.step if incident.told else None,
            "told_how": incident.told.how if incident.told else None,
            "told_line": incident.told.line if incident.told else None, "told_after_steps": incident.told_steps,
            "told_after_seconds": incident.told_seconds, "timely": incident.timely, "steps": total.steps,
            "tool_calls": total.calls, "tokens": total.tokens, "usd": total.usd, "usd_estimated": total.usd_estimated,
            "seconds": total.seconds}
