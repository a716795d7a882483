"""The operator's figures as `impasse annotate` prints them and `impasse report` writes them (HTML and
Markdown): three tables built once as text cells, so the terminal and both reports show the same."""

from __future__ import annotations

from dataclasses import dataclass

from rich.table import Table

from impasse.analysis.html_parts import cells_md, esc, html_table


@dataclass(frozen=True)
class TextTable:
    title: str
    header: tuple[str, ...]
    rows: list[list[str]]


def cell(value) -> str:
    if value is None:
        return "–"
    if isinstance(value, float):
        return f"{value:.2f}"
    return str(value)


def with_ci(figure: dict) -> str:
    ci = figure["ci"]
    return cell(figure["value"]) + (f" ({ci[0]:.2f}–{ci[1]:.2f})" if ci else "")


def spread(q: dict | None) -> str:
    return "–" if not q else f"{cell(q['median'])} [{cell(q['q1'])}–{cell(q['q3'])}]"


def counted(count: int, share: float | None) -> str:
    return f"{count} ({cell(share)})"


def help_table(groups: list[dict]) -> TextTable:
    rows = [[g["model"], str(g["blocked_with_onset"]), with_ci(g["helped_resolution"]), spread(g["rounds_to_help"]),
             with_ci(g["never_helped"]), str(g["after_lift"]["runs"]), spread(g["after_lift"]["steps_to_end"]),
             cell(g["after_lift"]["tests_rerun_mean"]), cell(g["after_lift"]["false_completion_rate"])]
            for g in groups]
    return TextTable("operator: helped resolution and after the lift (blocked runs with t*; 95% CI, bootstrap "
                     "over tasks)", ("model", "blocked runs with t*", "helped resolution", "rounds to help med [IQR]",
                                     "never helped", "lifted", "steps after lift med [IQR]", "tests re-run/lift",
                                     "false compl. after lift"), rows)


def escalation_table(groups: list[dict]) -> TextTable:
    rows = []
    for g in groups:
        p = g["profile"]
        replies = ", ".join(f"{v} {n}" for v, n in g["replies"].items() if n) or "–"
        rows.append([g["model"], str(g["escalations"]), with_ci(g["precision"]), with_ci(g["recall"]),
                     with_ci(g["f1"]), *(counted(p["counts"][k], p["shares"][k])
                                         for k in ("cause_named", "object_named", "earned", "shotgun")), replies])
    return TextTable("operator: escalations (precision over every escalation, recall over blocked runs with t*; "
                     "named: count (share of escalations read))",
                     ("model", "escalations", "precision", "recall", "F1", "cause named", "object named", "earned",
                      "shotgun", "replies"), rows)


def control_table(groups: list[dict]) -> TextTable:
    rows = []
    for g in groups:
        c = g["controls"]
        without = (with_ci(c["solve_rate_without"]) + f" ({c['runs_without']} runs)") if c["runs_without"] else "–"
        rows.append([g["model"], str(c["runs"]), with_ci(c["escalations_per_run"]), str(c["runs_escalating"]),
                     str(c["actionable_escalations"]), spread(c["steps_after_first_escalation"]),
                     with_ci(c["solve_rate_with"]), without])
    return TextTable("operator: over-escalation on the control (none)",
                     ("model", "control runs", "escalations/run", "runs escalating", "actionable",
                      "steps after 1st escalation med [IQR]", "solve rate with operator",
                      "solve rate without (same model)"), rows)


def operator_tables(summary: dict) -> list[TextTable]:
    """[] when no run had the operator."""
    groups = summary.get("operator") or []
    return [help_table(groups), escalation_table(groups), control_table(groups)] if groups else []


def rich_table(table: TextTable) -> Table:
    shown = Table(title=table.title)
    for head in table.header:
        shown.add_column(head, overflow="fold")
    for row in table.rows:
        shown.add_row(*row)
    return shown


def operator_html(summary: dict) -> str:
    tables = operator_tables(summary)
    if not tables:
        return ""
    return "<h2>Operator</h2>" + "".join(f"<h3>{esc(t.title)}</h3>" + html_table(list(t.header), [
        [esc(c) for c in row] for row in t.rows]) for t in tables)


def operator_markdown(summary: dict) -> list[str]:
    tables = operator_tables(summary)
    if not tables:
        return []
    lines = ["## Operator", ""]
    for table in tables:
        lines += [f"### {table.title}", "", cells_md(table.header), cells_md(["---"] * len(table.header)),
                  *(cells_md(row) for row in table.rows), ""]
    return lines
