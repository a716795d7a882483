"""The operator's aggregates (docs/metrics.md, The operator): helped resolution, rounds to help,
escalation precision / recall / F1 in HiL-Bench's sense, the actionability profile, what came after
a lift, and over-escalation on controls. One group per model label, which carries the operator
(`openai:gpt-5+operator:rules`), so runs with the operator are never pooled with runs without it;
the only figure that looks at the latter is the control solve rate without the operator, shown
beside the one with it. Intervals: 95% percentile bootstrap over tasks, as everywhere else."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable

from impasse.analysis.intervals import bootstrap, quartiles
from impasse.analysis.metrics import Annotation
from impasse.analysis.operator_runs import PROFILE, VERDICTS, OperatorRow
from impasse.vocabulary import UNSCORED, Outcome

Statistic = Callable[[list[Annotation]], float | None]


def ratio(numerator: float, denominator: float) -> float | None:
    return round(numerator / denominator, 4) if denominator else None


def is_blocked(run: Annotation) -> bool:
    """An operator run is always impasse's own: blocked by its condition (as aggregate.is_blocked)."""
    return run.row.condition not in ("none", None)


def op(run: Annotation) -> OperatorRow:
    return run.operator  # type: ignore[return-value]  # only called on operator runs


def recorded(runs: list[Annotation]) -> list[Annotation]:
    return [r for r in runs if op(r).recorded]


def onset_blocked(runs: list[Annotation]) -> list[Annotation]:
    """The denominator of helped resolution and recall: blocked runs in which the annotator found t*."""
    return [r for r in recorded(runs) if is_blocked(r) and r.row.t_star is not None]


def controls(runs: list[Annotation]) -> list[Annotation]:
    return [r for r in runs if not is_blocked(r)]


def helped_resolution(runs: list[Annotation]) -> float | None:
    base = onset_blocked(runs)
    return ratio(sum(op(r).lifted and r.row.outcome == Outcome.RESOLVED for r in base), len(base))


def recall(runs: list[Annotation]) -> float | None:
    base = onset_blocked(runs)
    return ratio(sum(op(r).lifted for r in base), len(base))


def never_helped(runs: list[Annotation]) -> float | None:
    base = onset_blocked(runs)
    return ratio(sum(not op(r).lifted for r in base), len(base))


def precision(runs: list[Annotation]) -> float | None:
    escalations = [e for r in recorded(runs) for e in op(r).escalations]
    return ratio(sum(e.actionable for e in escalations), len(escalations))


def f1(runs: list[Annotation]) -> float | None:
    p, r = precision(runs), recall(runs)
    if p is None or r is None:
        return None
    return round(2 * p * r / (p + r), 4) if p + r else 0.0


def escalations_per_control(runs: list[Annotation]) -> float | None:
    base = recorded(controls(runs))
    return ratio(sum(len(op(r).escalations) for r in base), len(base))


def solve_rate(runs: list[Annotation]) -> float | None:
    return ratio(sum(r.row.outcome == Outcome.RESOLVED for r in runs), len(runs))


def with_ci(runs: list[Annotation], statistic: Statistic) -> dict:
    return {"value": statistic(runs), "ci": bootstrap(runs, statistic)}


def profile(runs: list[Annotation]) -> dict:
    """What the escalations the rule read named: counts, and shares of those escalations; with the
    rule's verdicts beside them."""
    judged = [e for r in recorded(runs) for e in op(r).judged]
    counts = {key: sum(e.names()[key] for e in judged) for key in PROFILE}
    verdicts = defaultdict(int)
    for escalation in judged:
        verdicts[escalation.judged] += 1
    return {"judged": len(judged), "counts": counts, "shares": {k: ratio(n, len(judged)) for k, n in counts.items()},
            "verdicts": dict(sorted(verdicts.items()))}


def after_lift(runs: list[Annotation]) -> dict:
    lifted = [op(r) for r in recorded(runs) if op(r).lifted]
    reruns = [row.tests_after_lift for row in lifted]
    false = [row.false_completion_after_lift for row in lifted if row.false_completion_after_lift is not None]
    return {"runs": len(lifted), "steps_to_end": quartiles([row.steps_after_lift for row in lifted]),
            "tests_rerun_mean": ratio(sum(reruns), len(reruns)),
            "tests_rerun_share": ratio(sum(n > 0 for n in reruns), len(reruns)),
            "false_completion_rate": ratio(sum(false), len(false)),
            "cards": dict(sorted(tally(row.lifted_card for row in lifted).items()))}


def tally(values) -> dict:
    counts: dict = defaultdict(int)
    for value in values:
        counts[value] += 1
    return counts


def control_figures(runs: list[Annotation], without: list[Annotation]) -> dict:
    """Over-escalation on the control: escalations per run, steps spent after the first one, and the
    solve rate with the operator beside the same model's without it (None where there are no such
    runs)."""
    base = recorded(controls(runs))
    plain = controls(without)
    return {"runs": len(base), "escalations_per_run": with_ci(base, escalations_per_control),
            "runs_escalating": sum(bool(op(r).escalations) for r in base),
            "actionable_escalations": sum(e.actionable for r in base for e in op(r).escalations),
            "steps_after_first_escalation": quartiles([op(r).steps_after_first_escalation for r in base]),
            "solve_rate_with": with_ci(controls(runs), solve_rate),
            "solve_rate_without": with_ci(plain, solve_rate), "runs_without": len(plain)}


def by_condition(runs: list[Annotation]) -> dict[str, dict]:
    found: dict[str, dict] = {}
    for run in sorted(recorded(runs), key=lambda r: r.row.condition or ""):
        entry = found.setdefault(run.row.condition or "", {"runs": 0, "with_onset": 0, "lifted": 0, "helped": 0})
        entry["runs"] += 1
        entry["with_onset"] += run.row.t_star is not None
        entry["lifted"] += op(run).lifted
        entry["helped"] += op(run).lifted and run.row.outcome == Outcome.RESOLVED
    return found


def summarise_operator(runs: list[Annotation], without: list[Annotation]) -> dict:
    first = op(runs[0])
    base = onset_blocked(runs)
    lifted_runs = [op(r) for r in base if op(r).lifted]
    return {
        "model": runs[0].row.model, "plain_model": first.plain_model, "operator": first.mode,
        "runs": len(runs), "unrecorded": len(runs) - len(recorded(runs)), "blocked_with_onset": len(base),
        "lifted_without_onset": sum(op(r).lifted for r in recorded(runs) if is_blocked(r) and r.row.t_star is None),
        "helped_resolution": with_ci(runs, helped_resolution),
        "rounds_to_help": quartiles([row.rounds_to_help for row in lifted_runs]),
        "never_helped": with_ci(runs, never_helped),
        "escalations": sum(len(op(r).escalations) for r in recorded(runs)),
        "replies": {v: sum(op(r).replies[v] for r in recorded(runs)) for v in VERDICTS},
        "precision": with_ci(runs, precision), "recall": with_ci(runs, recall), "f1": with_ci(runs, f1),
        "profile": profile(runs), "after_lift": after_lift(runs), "controls": control_figures(runs, without),
        "by_condition": by_condition(runs),
    }


def operator_summary(annotations: list[Annotation]) -> list[dict]:
    """One entry per model label with the operator; [] when no run had it. Transport errors are left
    out, as from every behavioural figure."""
    scored = [a for a in annotations if a.row.outcome not in UNSCORED]
    groups: dict[str, list[Annotation]] = defaultdict(list)
    plain: dict[str, list[Annotation]] = defaultdict(list)
    for run in scored:
        if run.operator is not None:
            groups[run.row.model].append(run)
        elif run.source == "impasse":
            plain[run.row.model].append(run)
    return [summarise_operator(runs, plain.get(op(runs[0]).plain_model, []))
            for _, runs in sorted(groups.items())]
