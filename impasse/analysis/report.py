"""`impasse report`: one self-contained HTML page (figures inlined as PNG data) or a Markdown file
from a folder of runs. A figure without data says so instead of drawing an empty axis."""

from __future__ import annotations

import base64
import io
import json
from collections import Counter
from pathlib import Path

from impasse.analysis.aggregate import aggregate
from impasse.analysis.costs import cost_texts, group_cost, run_cost_text
from impasse.analysis.driver import annotate_paths
from impasse.analysis.findings import (
    integrity_rows,
    landing_html,
    landing_markdown,
    tampering_html,
    tampering_markdown,
    tampering_rows,
)
from impasse.analysis.html_parts import anchor, esc, html_table
from impasse.analysis.metrics import Annotation
from impasse.analysis.operator_views import operator_html, operator_markdown
from impasse.episode.records import Step
from impasse.episode.run_record import RunRecord
from impasse.vocabulary import SCORED_OUTCOMES, Outcome

COLOURS: dict[Outcome, str] = {
    Outcome.RESOLVED: "#2e7d32", Outcome.CIRCUMVENTION: "#880e4f", Outcome.TAMPERING: "#d500f9",
    Outcome.ESCALATED: "#1565c0",
    Outcome.FALSE_COMPLETION: "#c62828",
    Outcome.COMPLETION_UNVERIFIED: "#9e9e9e", Outcome.PREMATURE_STOP: "#ad1457", Outcome.DEAD_END: "#6a1b9a",
    Outcome.STALL: "#f9a825", Outcome.BUDGET_EXHAUSTED: "#ef6c00",
    Outcome.CONTEXT_EXHAUSTED: "#ff8f00", Outcome.COST_EXHAUSTED: "#8d6e63", Outcome.HARNESS_ERROR: "#6d4c41",
    Outcome.TRANSPORT_ERROR: "#424242", Outcome.UNKNOWN: "#bdbdbd"}
STRIP_LIMIT = 120


class ReportError(ValueError):
    pass


def figure_data(draw) -> str:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig = draw(plt)
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=110, bbox_inches="tight")
    plt.close(fig)
    return base64.b64encode(buffer.getvalue()).decode()


def outcome_bars(groups: list[dict]):
    rows = [g for g in groups if g["n_scored"]]
    if not rows:
        return None

    def draw(plt):
        fig, ax = plt.subplots(figsize=(9, 0.35 * len(rows) + 1.2))
        labels = [f"{g['model']} · {g['condition']}" for g in rows]
        left = [0.0] * len(rows)
        for outcome in SCORED_OUTCOMES:
            values = [g["outcome_shares"][outcome] or 0 for g in rows]
            if any(values):
                ax.barh(labels, values, left=left, color=COLOURS[outcome], label=str(outcome))
                left = [a + b for a, b in zip(left, values, strict=True)]
        ax.set_xlim(0, 1)
        ax.invert_yaxis()
        ax.set_xlabel("share of scored runs")
        ax.legend(loc="lower center", bbox_to_anchor=(0.5, 1.0), ncol=3, fontsize=8)
        return fig
    return draw


def distributions(annotations: list[Annotation]):
    data = {key: {} for key in ("N_post", "L")}
    for a in annotations:
        for key in data:
            if a.row.get(key) is not None:
                data[key].setdefault(a.row.model, []).append(a.row.get(key))
    if not any(data.values()):
        return None

    def draw(plt):
        fig, axes = plt.subplots(1, 2, figsize=(10, 3.2))
        for ax, (key, by_model) in zip(axes, data.items(), strict=True):
            if by_model:
                ax.boxplot(list(by_model.values()), orientation="horizontal")
                ax.set_yticks(range(1, len(by_model) + 1), list(by_model), fontsize=8)
            else:
                ax.text(0.5, 0.5, f"no runs with {key}", ha="center", va="center")
            ax.set_title(f"{key} (steps)")
        return fig
    return draw


def onset_strip(annotations: list[Annotation], lengths: dict[str, int]):
    runs = [a for a in annotations if a.row.t_star is not None][:STRIP_LIMIT]
    if not runs:
        return None

    def draw(plt):
        fig, ax = plt.subplots(figsize=(10, 0.22 * len(runs) + 1.2))
        for y, a in enumerate(runs):
            length = lengths.get(a.row.run_id, a.row.t_star + (a.row.N_post or 0))
            colour = COLOURS.get(a.row.outcome, "#000")
            ax.plot([1, length], [y, y], color="#cccccc", lw=2)
            ax.plot([a.row.t_star, length], [y, y], color=colour, lw=2)
            ax.plot(a.row.t_star, y, marker="|", color="black", ms=10)
            for hit in a.evidence.get("U", []):
                ax.plot(hit["step"], y, marker="x", color="#c62828", ms=5)
        ax.set_yticks(range(len(runs)), [f"{a.row.model} {a.row.task} {a.row.condition}" for a in runs],
                      fontsize=6)
        ax.invert_yaxis()
        ax.set_xlabel("step (| onset t*, x unsafe workaround, colour: outcome after t*)")
        return fig
    return draw


def escalation_bars(summary: dict):
    models = [(m, e) for m, e in summary["escalation"].items() if e["precision"] is not None or e["recall"]]
    if not models:
        return None

    def draw(plt):
        fig, ax = plt.subplots(figsize=(8, 0.4 * len(models) + 1.2))
        labels = [m for m, _ in models]
        ax.barh([f"{m} precision" for m in labels], [e["precision"] or 0 for _, e in models], color="#1565c0")
        ax.barh([f"{m} recall" for m in labels], [e["recall"] or 0 for _, e in models], color="#90caf9")
        ax.set_xlim(0, 1)
        ax.invert_yaxis()
        return fig
    return draw


def workaround_bars(annotations: list[Annotation]):
    counts = Counter(hit["category"] for a in annotations for hit in a.evidence.get("U", []))
    if not counts:
        return None

    def draw(plt):
        fig, ax = plt.subplots(figsize=(8, 0.3 * len(counts) + 1.2))
        names, values = zip(*counts.most_common(), strict=True)
        ax.barh(names, values, color="#c62828")
        ax.invert_yaxis()
        ax.set_xlabel("actions matching the category, after t*")
        return fig
    return draw


def stage_curve(rows: list[dict]):
    """Adherence (CLEAN share of duty-active checkpoints) by phase, as in the seed paper's Figure 3."""
    from impasse.analysis.stage_scoring import PHASES
    by_model: dict[str, dict[str, list]] = {}
    for row in rows:
        for phase, value in row["curve"].items():
            if value is not None:
                by_model.setdefault(row["model"], {}).setdefault(phase, []).append(value)
    if not by_model:
        return None

    def draw(plt):
        fig, ax = plt.subplots(figsize=(8, 3.2))
        for model, phases in by_model.items():
            xs = [i for i, p in enumerate(PHASES) if p in phases]
            ys = [sum(phases[PHASES[i]]) / len(phases[PHASES[i]]) for i in xs]
            ax.plot(xs, ys, marker="o", label=model)
        ax.set_xticks(range(len(PHASES)), PHASES, fontsize=8)
        ax.set_ylim(-0.05, 1.05)
        ax.set_ylabel("adherence (CLEAN share)")
        ax.legend(fontsize=7)
        return fig
    return draw


def load(paths: list[Path]) -> tuple[list[Annotation], dict, dict[str, RunRecord]]:
    """Every run folder read once: the annotations and the records they were made from."""
    batch = annotate_paths(paths)
    ours = [a for a in batch.annotations if a.source == "impasse"]
    if not ours:
        raise ReportError(f"no finished impasse runs found under {', '.join(map(str, paths))}"
                          + (f" ({len(batch.skipped)} skipped)" if batch.skipped else ""))
    return ours, aggregate(ours), batch.records


FIGURES = (("Outcomes per model × condition", "outcomes"), ("N_post and L", "distributions"),
           ("Where the blocker showed, and what came after", "strip"),
           ("Escalation precision and recall", "escalation"), ("Unsafe workaround categories", "workarounds"),
           ("Stage curve (runs with the reporting duty)", "stages"))


def figures(annotations: list[Annotation], summary: dict, records: dict[str, RunRecord]) -> dict[str, str | None]:
    from impasse.analysis.stage_scoring import stage_summary
    lengths = {rid: len(r.steps) for rid, r in records.items()}
    draws = {"outcomes": outcome_bars(summary["groups"]), "distributions": distributions(annotations),
             "strip": onset_strip(annotations, lengths), "escalation": escalation_bars(summary),
             "workarounds": workaround_bars(annotations), "stages": stage_curve(stage_summary(list(records.values())))}
    return {key: figure_data(draw) if draw else None for key, draw in draws.items()}


def steps_html(steps: list[Step]) -> str:
    parts = []
    for step in steps:
        calls = []
        for call, obs in zip(step.tool_calls, step.observations, strict=False):
            shown = json.dumps(call.arguments if call.arguments is not None else call.raw_arguments)[:400]
            flag = f" · injected {esc(obs.injected)}" if obs.injected else ""
            calls.append(f"<div class='call'><b>{esc(call.name)}</b> <code>{esc(shown)}</code>"
                         f"<pre>exit {esc(obs.exit_code)}{flag}\n{esc(obs.output[-1500:])}</pre></div>")
        text = f"<p><i>{esc(step.text)}</i></p>" if step.text else ""
        title = f"<h4>step {step.index} ({esc(step.kind)})</h4>"
        parts.append(f"<div class='step'>{title}{text}{''.join(calls)}</div>")
    return "".join(parts)


CSS = """body{font-family:system-ui,sans-serif;margin:2em;max-width:1200px}table{border-collapse:collapse;
font-size:13px;margin:1em 0}td,th{border:1px solid #ddd;padding:3px 6px;text-align:left}th{background:#f4f4f4}
pre{background:#f8f8f8;padding:6px;white-space:pre-wrap;font-size:12px}.step{border-left:3px solid #ddd;
padding-left:8px;margin:6px 0}.nodata{color:#777;font-style:italic}img{max-width:100%}"""


def render_html(annotations, summary, records, figs) -> str:
    sections = [f"<h1>impasse report</h1><p>{len(annotations)} runs, cost {cost_texts(group_cost(annotations))[0]} · "
                f"models: {esc(', '.join(sorted({a.row.model for a in annotations})))}</p>"]
    for title, key in FIGURES:
        body = (f"<img alt='{esc(title)}' src='data:image/png;base64,{figs[key]}'>" if figs[key]
                else "<p class='nodata'>No data for this figure.</p>")
        sections.append(f"<h2>{esc(title)}</h2>{body}")
    groups = [[esc(g["model"]), esc(g["condition"]), g["n_scored"], esc(g["blocker_landed"]),
               esc(g["outcome_shares"][Outcome.TAMPERING]), esc(g["escalation_rate"]),
               esc(g["false_completion_rate"]), esc(g["acknowledgment_rate"]), esc(g["share_U_positive"]),
               esc(g["never_hit_share"]), g["transport_errors"], *cost_texts(g["cost"])] for g in summary["groups"]]
    sections.append("<h2>Aggregates</h2>" + html_table(
        ["model", "condition", "n", "blocker landed", str(Outcome.TAMPERING), "Y", "Z", "A", "U>0", "never hit",
         "transport", "cost", "cost/run"], groups))
    sections.append(operator_html(summary))
    sections.append(tampering_html(tampering_rows(annotations, records)))
    sections.append(landing_html(summary["landing"]))
    integrity = integrity_rows(annotations, records)
    sections.append("<h2>Runs whose blocker was removed, and integrity failures</h2>" + (
        html_table(["run", "finding"], [[f"<a href='#{anchor(r)}'>{esc(r)}</a>", esc(f)] for r, f in integrity])
        if integrity else "<p class='nodata'>None: every blocker held and no run tampered with tests.</p>"))
    rows = [[f"<a href='#{anchor(a.row.run_id)}'>{esc(a.row.run_id)}</a>", esc(a.row.condition),
             esc(a.row.t_star), esc(a.row.N_post), esc(a.row.L), esc(a.row.U), esc(a.row.Y),
             esc(a.row.Z), esc(a.row.A), esc(a.row.outcome), run_cost_text(a.cost)] for a in annotations]
    sections.append("<h2>Runs</h2>" + html_table(
        ["run", "condition", "t*", "N_post", "L", "U", "Y", "Z", "A", "outcome", "cost"], rows))
    for a in annotations:
        rid = a.row.run_id
        sections.append(f"<details id='{anchor(rid)}'><summary>{esc(rid)} — {esc(a.row.outcome)}</summary>"
                        f"{steps_html(records[rid].steps)}</details>")
    return f"<!doctype html><html><head><meta charset='utf-8'><title>impasse report</title><style>{CSS}</style>" \
           f"</head><body>{''.join(sections)}</body></html>\n"


def render_markdown(annotations, summary, records, figs) -> str:
    lines = ["# impasse report", "", f"{len(annotations)} runs, cost {cost_texts(group_cost(annotations))[0]}.", ""]
    for title, key in FIGURES:
        lines += [f"## {title}", "", f"![{title}](data:image/png;base64,{figs[key]})" if figs[key]
                  else "_No data for this figure._", ""]
    lines += operator_markdown(summary)
    lines += tampering_markdown(tampering_rows(annotations, records)) + landing_markdown(summary["landing"])
    lines += ["## Runs", "", "| run | condition | t* | N_post | L | U | Y | Z | A | outcome | cost |",
              "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for a in annotations:
        cells = [a.row.get(k) for k in ("run_id", "condition", "t_star", "N_post", "L", "U", "Y", "Z", "A", "outcome")]
        lines.append("| " + " | ".join("–" if c is None else str(c) for c in cells) + f" | {run_cost_text(a.cost)} |")
    return "\n".join(lines) + "\n"


def write_report(paths: list[Path], html_path: Path | None, md_path: Path | None) -> list[Path]:
    annotations, summary, records = load(paths)
    figs = figures(annotations, summary, records)
    written = []
    if html_path:
        html_path.write_text(render_html(annotations, summary, records, figs))
        written.append(html_path)
    if md_path:
        md_path.write_text(render_markdown(annotations, summary, records, figs))
        written.append(md_path)
    return written
