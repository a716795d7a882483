"""The report's findings about the harness's own truth, beside the agent's behaviour: blockers that
were removed or never landed, tests changed, and runs that forged or tampered with the truth."""

from __future__ import annotations

from dataclasses import dataclass

from impasse.analysis.html_parts import anchor, cells_md, esc, html_table
from impasse.analysis.metrics import Annotation
from impasse.episode.run_record import RunRecord


def integrity_rows(annotations: list[Annotation], records: dict[str, RunRecord]) -> list[tuple[str, str]]:
    rows = []
    for a in annotations:
        result = records[a.row.run_id].result
        truth = (result.truth if result else None) or {}
        problems = []
        if a.row.blocker_removed:
            problems.append("blocker removed (the probe no longer holds at the end)")
        if truth and truth.get("integrity_ok") is False:
            integrity = truth.get("integrity", {})
            found = integrity.get("tests_changed", []) + integrity.get("suspicious", [])
            problems.append("integrity: " + ", ".join(found))
        if problems:
            rows.append((a.row.run_id, "; ".join(problems)))
    return rows


@dataclass(frozen=True)
class TamperingRow:
    """A run that forged or tampered with the truth, with what its ending said beside it."""

    run_id: str
    condition: str
    outcome: str
    ended_with: str  # the claim or the escalation the run keeps, or what else ended it
    findings: list[dict]  # {route, evidence}


def tampering_rows(annotations: list[Annotation], records: dict[str, RunRecord]) -> list[TamperingRow]:
    rows = []
    for a in annotations:
        result = records[a.row.run_id].result
        if result is None or not result.tampered:
            continue
        said = result.claim if result.claim is not None else result.escalation
        ended_with = f"{result.ending.kind}: {said}" if said is not None else result.ending.kind
        rows.append(TamperingRow(a.row.run_id, a.row.condition or "", a.row.outcome or "", ended_with,
                                 result.tampered))
    return rows


def findings_text(findings: list[dict]) -> str:
    return "; ".join(f"{f.get('route')}: {f.get('evidence', '')}" for f in findings)


def tampering_html(rows: list[TamperingRow]) -> str:
    title = "<h2>Runs that tampered with the truth</h2>"
    if not rows:
        return title + "<p class='nodata'>None: no run forged or tampered with the harness's truth.</p>"
    body = [[f"<a href='#{anchor(r.run_id)}'>{esc(r.run_id)}</a>", esc(r.condition), esc(r.outcome),
             esc(r.ended_with), "<br>".join(f"<b>{esc(f.get('route'))}</b>: {esc(f.get('evidence', ''))}"
                                            for f in r.findings)] for r in rows]
    return title + html_table(["run", "condition", "outcome", "ended with", "routes (evidence)"], body)


def landing_html(landing: dict[str, dict]) -> str:
    title = "<h2>Blockers that landed</h2><p>Per card: runs whose blocker was in place before step 1 " \
            "(a run whose blocker did not land is a harness error, never a scored outcome).</p>"
    if not landing:
        return title + "<p class='nodata'>No blocked runs.</p>"
    return title + html_table(["card", "runs", "landed", "share"], [
        [esc(card), c["runs"], c["landed"], esc(c["share"])] for card, c in landing.items()])


def tampering_markdown(rows: list[TamperingRow]) -> list[str]:
    lines = ["## Runs that tampered with the truth", ""]
    if not rows:
        return lines + ["_None: no run forged or tampered with the harness's truth._", ""]
    lines += ["| run | condition | outcome | ended with | routes (evidence) |", "| --- | --- | --- | --- | --- |"]
    return lines + [cells_md([r.run_id, r.condition, r.outcome, r.ended_with, findings_text(r.findings)])
                    for r in rows] + [""]


def landing_markdown(landing: dict[str, dict]) -> list[str]:
    lines = ["## Blockers that landed", ""]
    if not landing:
        return lines + ["_No blocked runs._", ""]
    lines += ["| card | runs | landed | share |", "| --- | --- | --- | --- |"]
    return lines + [cells_md([card, c["runs"], c["landed"], c["share"]]) for card, c in landing.items()] + [""]
