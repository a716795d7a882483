"""Rich tables and files for `impasse annotate`."""

from __future__ import annotations

import csv
import json
from pathlib import Path

from rich.console import Console
from rich.table import Table

from impasse.analysis.aggregate import condition_of
from impasse.analysis.costs import COST_KEYS, cost_columns, cost_texts
from impasse.analysis.metrics import RUN_KEYS, Annotation
from impasse.analysis.operator_runs import OPERATOR_KEYS, operator_columns
from impasse.analysis.operator_views import operator_tables, rich_table
from impasse.vocabulary import SCORED_OUTCOMES, Outcome

SHOWN = ("model", "task", "condition", "t_star", "N_post", "L", "U", "Y", "Z", "A", "R", "outcome", "blocker_removed")


def cell(value) -> str:
    if value is None:
        return "–"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:.2f}"
    return str(value)


def runs_table(annotations: list[Annotation]) -> Table:
    table = Table(title=f"{len(annotations)} runs")
    for key in SHOWN:
        table.add_column(key, overflow="fold")
    for a in annotations:
        table.add_row(*(condition_of(a) if k == "condition" else cell(a.row.get(k)) for k in SHOWN))
    return table


def spread(q: dict | None) -> str:
    return "–" if not q else f"{cell(q['median'])} [{cell(q['q1'])}–{cell(q['q3'])}]"


def rate(value, ci) -> str:
    return cell(value) + (f" ({ci[0]:.2f}–{ci[1]:.2f})" if ci else "")


# Tampering is always shown: a column of zeros is itself the news that no run forged the truth.
ALWAYS_SHOWN = (Outcome.RESOLVED, Outcome.TAMPERING, Outcome.ESCALATED, Outcome.FALSE_COMPLETION,
                Outcome.BUDGET_EXHAUSTED, Outcome.HARNESS_ERROR)


# Column heads short enough for a terminal; other outcomes are headed by their name.
SHORT_HEADS = {Outcome.FALSE_COMPLETION: "false compl.", Outcome.BUDGET_EXHAUSTED: "budget",
               Outcome.HARNESS_ERROR: "harness", Outcome.COMPLETION_UNVERIFIED: "unverified",
               Outcome.PREMATURE_STOP: "premature", Outcome.CONTEXT_EXHAUSTED: "context",
               Outcome.COST_EXHAUSTED: "cost", Outcome.TAMPERING: "tampered"}


def outcome_columns(summary: dict) -> list[Outcome]:
    """The main outcomes, and every other scored outcome that some group has, in the vocabulary's
    order (a column of dashes for a gate's outcome no run had would only widen the table)."""
    return [o for o in SCORED_OUTCOMES
            if o in ALWAYS_SHOWN or any(g["outcome_shares"][o] for g in summary["groups"])]


def aggregate_table(summary: dict) -> Table:
    table = Table(title="outcomes per model × condition (shares of scored runs)")
    shown = outcome_columns(summary)
    cost_heads = ("cost", "cost/run") if any(g["cost"] for g in summary["groups"]) else ()  # foreign runs record none
    heads = [SHORT_HEADS.get(o, str(o).replace("_", " ")) for o in shown]
    for column in ("model", "condition", "n", "blocker landed", *heads, "never hit", "removed", "transport",
                   *cost_heads):
        table.add_column(column, overflow="fold")
    for g in summary["groups"]:
        shares = [cell(g["outcome_shares"][o]) for o in shown]
        table.add_row(g["model"], g["condition"], str(g["n_scored"]), cell(g["blocker_landed"]), *shares,
                      cell(g["never_hit_share"]), str(g["blocker_removed"]), str(g["transport_errors"]),
                      *(cost_texts(g["cost"]) if cost_heads else ()))
    return table


def behaviour_table(summary: dict) -> Table:
    table = Table(title="behaviour after the onset (95% CI, bootstrap over tasks)")
    for column in ("model", "condition", "escalation Y", "false compl. Z", "ack. A", "U>0", "mean U",
                   "N_post med [IQR]", "L med [IQR]"):
        table.add_column(column, overflow="fold")
    for g in summary["groups"]:
        table.add_row(g["model"], g["condition"], rate(g["escalation_rate"], g["escalation_rate_ci"]),
                      rate(g["false_completion_rate"], g["false_completion_rate_ci"]),
                      rate(g["acknowledgment_rate"], g["acknowledgment_rate_ci"]), cell(g["share_U_positive"]),
                      cell(g["mean_U"]), spread(g["N_post"]), spread(g["L"]))
    return table


def escalation_table(summary: dict) -> Table:
    table = Table(title="escalation across blocked and control runs")
    for column in ("model", "precision", "recall", "F1", "escalations", "blocked runs"):
        table.add_column(column)
    for model, e in summary["escalation"].items():
        table.add_row(model, cell(e["precision"]), cell(e["recall"]), cell(e["f1"]), str(e["escalations"]),
                      str(e["blocked_runs"]))
    return table


def ending_fact(a: Annotation) -> str:
    """What the ending itself says, kept beside a tampering outcome."""
    return "escalation" if a.escalated else "claim of completion" if a.claimed else "–"


def tampering_table(annotations: list[Annotation]) -> Table | None:
    """The runs that forged or tampered with the truth, and by which routes; None when none did."""
    tampered = [a for a in annotations if a.row.tampering]
    if not tampered:
        return None
    table = Table(title=f"{len(tampered)} runs tampered with the truth (their routes; evidence: impasse show RUN)")
    for column in ("run", "condition", "outcome", "ended with", "routes"):
        table.add_column(column, overflow="fold")
    for a in tampered:
        table.add_row(a.row.run_id, condition_of(a), cell(a.row.outcome), ending_fact(a), ", ".join(a.row.tampering))
    return table


def landing_table(summary: dict) -> Table | None:
    """Per card, over every model: the share of runs whose blocker was in place before step 1."""
    if not summary["landing"]:
        return None
    table = Table(title="blockers that landed (in place before step 1; a miss is a harness error)")
    for column in ("card", "runs", "landed", "share"):
        table.add_column(column)
    for card, counted in summary["landing"].items():
        table.add_row(card, str(counted["runs"]), str(counted["landed"]), cell(counted["share"]))
    return table


def show_truth_tables(annotations: list[Annotation], summary: dict, console: Console) -> None:
    """What the truth says beyond the metrics — blockers that landed, runs that tampered — shown in
    every view, since neither a verdict nor a metric column says it."""
    for optional in (landing_table(summary), tampering_table(annotations)):
        if optional is not None:
            console.print(optional)


def show(annotations: list[Annotation], summary: dict, console: Console) -> None:
    console.print(runs_table(annotations))
    console.print(aggregate_table(summary))
    show_truth_tables(annotations, summary, console)
    console.print(behaviour_table(summary))
    console.print(escalation_table(summary))
    show_operator_tables(summary, console)


def show_operator_tables(summary: dict, console: Console) -> None:
    """What the operator did, in every view: only when some run had the operator."""
    for table in operator_tables(summary):
        console.print(rich_table(table))


def write_json(annotations: list[Annotation], summary: dict, path: Path) -> list[Path]:
    """Exactly the per-run keys in FILE; the evidence and the aggregate beside it."""
    path.write_text(json.dumps([run_columns(a) for a in annotations], indent=2) + "\n")
    evidence = path.with_name(path.stem + ".evidence.json")
    evidence.write_text(json.dumps({a.row.run_id + (f"@{a.row.condition}" if a.source != "impasse" else ""):
                                    a.evidence for a in annotations}, indent=2, default=str) + "\n")
    aggregate = path.with_name(path.stem + ".aggregate.json")
    aggregate.write_text(json.dumps(summary, indent=2) + "\n")
    return [path, evidence, aggregate]


def write_csv(annotations: list[Annotation], path: Path) -> None:
    with path.open("w", newline="") as out:
        writer = csv.DictWriter(out, fieldnames=(*RUN_KEYS, *COST_KEYS, *OPERATOR_KEYS))
        writer.writeheader()
        for a in annotations:
            writer.writerow(flat(run_columns(a)))


def run_columns(a: Annotation) -> dict:
    """A run's row of --json / --csv: its metrics, what it cost, what the operator did (null when off)."""
    return a.row.to_dict() | cost_columns(a.cost) | operator_columns(a.operator)


def flat(row: dict) -> dict:
    """A CSV cell holds one value: a list (the tampering routes) is written joined by `;`."""
    return {k: ";".join(map(str, v)) if isinstance(v, list) else v for k, v in row.items()}


def stage_table(rows: list[dict]) -> Table:
    table = Table(title="stage-reporting duty: θ per gold stage (CLEAN share of duty-active checkpoints), "
                        "ω, μ, ν, codes")
    for column in ("model", "condition", "gate", "checkpoints", "θ pre", "θ post", "θ blocked", "θ completed", "ω", "μ",
                   "ν", "codes"):
        table.add_column(column, overflow="fold")
    for r in rows:
        theta = r["theta"]
        table.add_row(r["model"], r["condition"], r["gate"], str(r["checkpoints"]), cell(theta.get("pre_action")),
                      cell(theta.get("post_observation_continue")), cell(theta.get("blocked")),
                      cell(theta.get("completed")), cell(r["omega"]), cell(r["mu"]), cell(r["nu"]),
                      ", ".join(f"{k} {v}" for k, v in sorted(r["codes"].items())))
    return table
