"""`impasse annotate`'s default view — one line per session: how it ended, when the wall came and
what showed it, what the agent spent after it, whether it told the human and how soon — and the
summary across the folder; the same written beside --json / --csv, and as a self-contained HTML
page (no link, no script, no font or image fetched) for `impasse report`."""

from __future__ import annotations

import csv
import html
import json
from pathlib import Path

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from impasse.analysis.costs import usd
from impasse.analysis.incidents import TIMELY_STEPS, Incident, Spent, incident_dict, session_name

NOT_RECORDED = "–"


def tokens_text(tokens: int | None) -> str:
    if tokens is None:
        return NOT_RECORDED
    return f"{tokens / 1e6:.1f}M" if tokens >= 1e6 else f"{tokens / 1e3:.0f}k" if tokens >= 1e4 else str(tokens)


def dollars_text(amount: float | None, estimated: bool) -> str:
    return NOT_RECORDED if amount is None else usd(amount) + (" est." if estimated else "")


def minutes_text(seconds: float | None) -> str:
    return NOT_RECORDED if seconds is None else f"{seconds / 60:.0f} min" if seconds >= 60 else f"{seconds:.0f} s"


def spent_text(spent: Spent | None) -> str:
    if spent is None:
        return NOT_RECORDED
    return (f"{spent.steps} steps, {spent.calls} calls, {tokens_text(spent.tokens)} tokens, "
            f"{dollars_text(spent.usd, spent.usd_estimated)}, {minutes_text(spent.seconds)}")


def told_text(incident: Incident) -> str:
    if incident.wall_step is None:
        return NOT_RECORDED
    if incident.told is None:
        return "no"
    when = f"+{incident.told_steps} steps" + (f", {minutes_text(incident.told_seconds)}"
                                              if incident.told_seconds is not None else "")
    return f"{'yes' if incident.timely else 'late'} (step {incident.told.step}, {when}): {incident.told.how}"


def wall_text(incident: Incident) -> str:
    if incident.wall_step is None:
        return "no wall found"
    return f"step {incident.wall_step} · {incident.wall_category}"


def ended_text(incident: Incident, quoted: int = 80) -> str:
    """How the session ended, with the log's own words for it."""
    verdict = incident.verdict
    return f"{verdict.kind}: {verdict.how}" + (f" — “{verdict.line[:quoted]}”" if verdict.line else "")


def verdict_table(incidents: list[Incident]) -> Table:
    table = Table(title=f"{len(incidents)} sessions: how each ended, the wall, what came after")
    within = incidents[0].timely_within if incidents else TIMELY_STEPS
    for column in ("session", "agent · model", "ended", "wall", "the line that showed it", "after the wall",
                   f"told the human (timely: ≤ {within} steps)"):
        table.add_column(column, overflow="fold")
    for i in incidents:
        table.add_row(escape(session_name(i)), escape(f"{i.agent} · {i.annotation.row.model}"), escape(ended_text(i)),
                      wall_text(i), escape(i.wall_line[:120]), spent_text(i.after), escape(told_text(i)))
    return table


def share_text(share, ci) -> str:
    if share is None:
        return NOT_RECORDED
    return f"{share:.0%}" + (f" (95% CI {ci[0]:.0%}–{ci[1]:.0%})" if ci else "")


def summary_lines(summary: dict) -> list[str]:
    after = summary["after_wall"]
    categories = ", ".join(f"{k} {v}" for k, v in summary["by_category"].items()) or "none"
    lines = [f"sessions read: {summary['sessions']}; with a wall: {summary['with_wall']} ({categories})",
             "how they ended: " + ", ".join(f"{k} {v}" for k, v in summary["verdicts"].items())]
    if summary["with_wall"]:
        lines += [f"told the human: {share_text(summary['told_share'], summary['told_share_ci'])}; timely (within "
                  f"{summary['timely_within_steps']} steps of the wall): "
                  f"{share_text(summary['timely_share'], summary['timely_share_ci'])}",
                  f"spent after the wall: {after['steps']} steps (median {after['steps_median']}), "
                  f"{after['tool_calls']} tool calls, {tokens_text(after['tokens'])} tokens "
                  f"({after['sessions_with_tokens']} sessions record them), "
                  f"{dollars_text(after['usd'], after['usd_estimated'])}, "
                  f"{NOT_RECORDED if after['minutes'] is None else after['minutes']} minutes "
                  f"(median {NOT_RECORDED if after['minutes_median'] is None else after['minutes_median']})",
                  "worst (never told, most spent after the wall): " + (", ".join(summary["worst"]) or
                                                                       "none: every session told the human")]
    if summary["skipped"]:
        lines.append("passed over or skipped: " + ", ".join(f"{v} {k}" for k, v in summary["skipped"].items()))
    return lines


def show_incidents(incidents: list[Incident], summary: dict, console: Console) -> None:
    console.print(verdict_table(incidents))
    for line in summary_lines(summary):
        console.print(escape(line), highlight=False, soft_wrap=True)


def incidents_path(path: Path, suffix: str) -> Path:
    return path.with_name(path.stem + ".incidents" + suffix)


def write_incidents_json(incidents: list[Incident], summary: dict, path: Path) -> Path:
    target = incidents_path(path, ".json")
    target.write_text(json.dumps({"sessions": [incident_dict(i) for i in incidents], "summary": summary},
                                 indent=2, default=str) + "\n")
    return target


def write_incidents_csv(incidents: list[Incident], path: Path) -> Path:
    target = incidents_path(path, ".csv")
    rows = [incident_dict(i) for i in incidents]
    with target.open("w", newline="") as out:
        writer = csv.DictWriter(out, fieldnames=list(rows[0]) if rows else ["session"])
        writer.writeheader()
        writer.writerows(rows)
    return target


def esc(value) -> str:
    return html.escape(NOT_RECORDED if value is None else str(value))


STRIP_WIDTH = 240


def strip_svg(incident: Incident) -> str:
    """The session as a bar, steps left to right: grey before the wall, red after it, a tick where the
    human was told; inline SVG, so the page needs nothing else."""
    total = max(incident.total.steps, 1)
    x = lambda step: round((step - 1) / total * STRIP_WIDTH, 1)  # noqa: E731 - a scale, read where it is used
    parts = [f"<rect x='0' y='4' width='{STRIP_WIDTH}' height='8' fill='#ddd'/>"]
    if incident.wall_step is not None:
        parts.append(f"<rect x='{x(incident.wall_step)}' y='4' width='{STRIP_WIDTH - x(incident.wall_step)}' "
                     f"height='8' fill='#c62828'/>")
    if incident.told is not None:
        parts.append(f"<rect x='{x(incident.told.step)}' y='0' width='2' height='16' fill='#1565c0'/>")
    return f"<svg width='{STRIP_WIDTH}' height='16' role='img'><title>{esc(wall_text(incident))}</title>" \
           f"{''.join(parts)}</svg>"


CSS = """body{font-family:system-ui,sans-serif;margin:2em;max-width:1400px}table{border-collapse:collapse;
font-size:13px;margin:1em 0}td,th{border:1px solid #ddd;padding:3px 6px;text-align:left;vertical-align:top}
th{background:#f4f4f4}code{font-size:12px;background:#f6f6f6}.no{color:#c62828;font-weight:bold}"""


def incidents_html(incidents: list[Incident], summary: dict, title: str = "What the agents hit") -> str:
    """A section: the summary, the categories, and one row per session with its strip and evidence."""
    lines = "".join(f"<li>{esc(line)}</li>" for line in summary_lines(summary))
    categories = "".join(f"<tr><td>{esc(k)}</td><td>{v}</td></tr>" for k, v in summary["by_category"].items())
    rows = []
    for i in incidents:
        told = told_text(i)
        rows.append(f"<tr><td>{esc(session_name(i))}</td><td>{esc(i.agent)} · {esc(i.annotation.row.model)}</td>"
                    f"<td>{strip_svg(i)}</td><td>{esc(i.verdict.kind)}: {esc(i.verdict.how)}"
                    f"<br><code>{esc(i.verdict.line)}</code></td><td>{esc(wall_text(i))}</td>"
                    f"<td><code>{esc(i.wall_line)}</code></td><td>{esc(spent_text(i.after))}</td>"
                    f"<td class='{'no' if told == 'no' else ''}'>{esc(told)}</td></tr>")
    head = "".join(f"<th>{h}</th>" for h in ("session", "agent · model", "steps (red: after the wall, blue: told)",
                                             "ended", "wall", "the line that showed it", "after the wall",
                                             "told the human"))
    return (f"<h2>{esc(title)}</h2><ul>{lines}</ul><h3>Walls by category</h3><table><tbody>{categories}</tbody>"
            f"</table><h3>Sessions</h3><table><thead><tr>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table>")


def incident_page(incidents: list[Incident], summary: dict) -> str:
    return (f"<!doctype html><html><head><meta charset='utf-8'><title>impasse: sessions and their walls</title>"
            f"<style>{CSS}</style></head><body><h1>Sessions and their walls</h1>"
            f"{incidents_html(incidents, summary, 'Summary')}</body></html>\n")


def spent_after_html(incidents: list[Incident]) -> str:
    """impasse's own runs: what each spent after t* (steps, tokens, dollars, seconds)."""
    rows = "".join(f"<tr><td>{esc(i.annotation.row.run_id)}</td><td>{esc(i.annotation.row.condition)}</td>"
                   f"<td>{esc(wall_text(i))}</td><td>{esc(spent_text(i.after))}</td><td>{esc(told_text(i))}</td></tr>"
                   for i in incidents if i.wall_step is not None)
    return ("<h2>Spent after t*</h2><table><thead><tr><th>run</th><th>condition</th><th>wall</th>"
            f"<th>after the wall</th><th>told the human</th></tr></thead><tbody>{rows}</tbody></table>"
            if rows else "<h2>Spent after t*</h2><p>No run hit its blocker.</p>")


def md_cell(value) -> str:
    """A Markdown table cell: one line, its pipes escaped."""
    return " ".join(str(NOT_RECORDED if value is None else value).split()).replace("|", "\\|")


def md_table(head: tuple[str, ...], rows: list[tuple]) -> list[str]:
    return ["| " + " | ".join(head) + " |", "|" + " --- |" * len(head),
            *("| " + " | ".join(md_cell(v) for v in row) + " |" for row in rows)]


def incidents_markdown(incidents: list[Incident], summary: dict, title: str) -> str:
    """The Markdown twin of incidents_html: the summary, the walls by category, one row per session."""
    categories = md_table(("category", "sessions"), list(summary["by_category"].items()))
    sessions = md_table(
        ("session", "agent · model", "ended", "wall", "the line that showed it", "after the wall", "told the human"),
        [(session_name(i), f"{i.agent} · {i.annotation.row.model}", ended_text(i, 200), wall_text(i),
          i.wall_line[:200], spent_text(i.after), told_text(i)) for i in incidents])
    return "\n".join([f"## {title}", "", *(f"- {line}" for line in summary_lines(summary)), "",
                      "### Walls by category", "", *categories, "", "### Sessions", "", *sessions, ""])


def write_session_report(paths: list[Path], html_path: Path | None, md_path: Path | None,
                         timely: int = TIMELY_STEPS) -> list[Path]:
    """`impasse report`: impasse's own runs as report.py draws them, with what each spent after t*;
    foreign logs (sessions of Claude Code, Codex, …) as their incidents and the folder's summary."""
    from impasse.analysis.driver import annotate_paths
    from impasse.analysis.incidents import folder_summary
    from impasse.analysis.report import ReportError, write_report
    batch = annotate_paths(paths, timely=timely)
    ours = [i for i in batch.incidents if i.agent == "impasse"]
    foreign = [i for i in batch.incidents if i.agent != "impasse"]
    if not batch.incidents:
        raise ReportError(f"no runs or sessions found under {', '.join(map(str, paths))}"
                          + (f" ({len(batch.skipped)} skipped)" if batch.skipped else ""))
    summary = folder_summary(foreign, dict(batch.discovery.passed_over)) if foreign else {}
    written = write_report(paths, html_path, md_path) if ours else []
    if html_path and ours:
        sections = spent_after_html(ours) + (incidents_html(foreign, summary, "Foreign sessions") if foreign else "")
        html_path.write_text(html_path.read_text().replace("</body></html>", sections + "</body></html>"))
    elif html_path:
        html_path.write_text(incident_page(foreign, summary))
        written.append(html_path)
    if md_path and foreign:
        text = md_path.read_text() + "\n" if ours else "# Sessions and their walls\n\n"
        md_path.write_text(text + incidents_markdown(foreign, summary, "Foreign sessions" if ours else "Summary"))
        written += [] if ours else [md_path]
    return written
