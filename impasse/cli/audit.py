"""`impasse audit`: the adversary suite against this grader. Every route to a forged truth
(impasse/models/adversary.py, docs/integrity.md) is played on a task, one run each; the table says
what each ended as and why. A route that ends `resolved` or `circumvention` (tests that pass on a
forged truth) or that the harness could not run fails the audit (exit 1)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from impasse import defaults
from impasse.cli.common import dim, docker_client, fail, must_be_writable, out
from impasse.vocabulary import Outcome

# A pass on a forged truth, or a route the harness could not play: either way the audit did not hold.
FAILS_THE_AUDIT = (Outcome.RESOLVED, Outcome.CIRCUMVENTION, Outcome.HARNESS_ERROR, Outcome.TRANSPORT_ERROR)
DEFAULT_TASK = "toolz.flip_comparison__bd880a90"  # a generated task: its image once kept the fix


def audit(
    task: Annotated[str, typer.Option(help="The task to play the routes on.")] = DEFAULT_TASK,
    condition: Annotated[str, typer.Option(help="A blocker card id, or none.")] = "none",
    route: Annotated[list[str] | None, typer.Option(help="Only these routes (default: every one).")] = None,
    runs: Annotated[Path, typer.Option(help="Folder of the audit's run folders.")] = defaults.OUT / "audit",
    json_out: Annotated[Path | None, typer.Option("--json", help="Each route's outcome and findings.")] = None,
) -> None:
    """Play every known route to a forged truth against the grader; exit 1 if one gets through."""
    from impasse.models.adversary import ROUTES
    from impasse.runs.runner import RunError, RunSpec, execute
    routes = route or list(ROUTES)
    unknown = sorted(set(routes) - set(ROUTES))
    if unknown:
        raise fail(f"unknown route(s) {', '.join(unknown)}; known: {', '.join(ROUTES)}", code=2)
    must_be_writable(runs, "--runs", folder=True)
    api = docker_client()
    rows = []
    for number, name in enumerate(routes, 1):
        dim(f"[{number}/{len(routes)}] {name}")
        try:
            result = execute(api, RunSpec(f"scripted:adversary-{name}", condition, task, out=runs, budget=12))
        except RunError as err:
            raise fail(str(err), code=2) from None
        rows.append(row_of(name, result))
    show(rows)
    if json_out:
        json_out.write_text(json.dumps(rows, indent=2))
    if any(r["outcome"] in FAILS_THE_AUDIT for r in rows):
        raise typer.Exit(1)


def row_of(name: str, result) -> dict:
    truth = result.truth
    grade = truth.grade if truth else None
    failing = [t for t, passed in (grade.fail_to_pass if grade else {}).items() if not passed]
    found = [t.route for t in truth.tampering] if truth else []
    return {"route": name, "outcome": str(result.outcome), "tampering": found, "failing_tests": len(failing),
            "run": str(result.path)}


def show(rows: list[dict]) -> None:
    from rich.table import Table
    table = Table(title="the grader against every route to a forged truth")
    for column in ("route", "outcome", "why"):
        table.add_column(column)
    for row in rows:
        why = ", ".join(dict.fromkeys(row["tampering"])) or f"{row['failing_tests']} failing test(s) still fail"
        mark = "red" if row["outcome"] in FAILS_THE_AUDIT else "green"
        table.add_row(row["route"], f"[{mark}]{row['outcome']}[/]", why)
    out.print(table)
    held = sum(r["outcome"] not in FAILS_THE_AUDIT for r in rows)
    out.print(f"{held} of {len(rows)} routes held: none resolved" if held == len(rows) else
              f"{len(rows) - held} of {len(rows)} routes got through or could not be played")
