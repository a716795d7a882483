"""`impasse tasks …`: list, validate, pin, and SWE-smith export/import."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.progress import Progress
from rich.table import Table

from impasse.catalog.schema import DocumentError
from impasse.cli.common import console, docker_client, fail, must_be_writable, must_exist, out, write_failed
from impasse.paths import TASKS

app = typer.Typer(no_args_is_help=True, help="The repair tasks.")


def load_or_fail(ids: list[str] | None, tasks_dir: Path = TASKS):
    from impasse.catalog.tasks import load_tasks
    try:
        return load_tasks(ids, tasks_dir)
    except KeyError as err:  # an unknown id: a bad request
        raise fail(str(err).strip("'\""), code=2) from None
    except DocumentError as err:  # a broken task file
        raise fail(str(err)) from None


@app.command("list")
def list_tasks(coverage: Annotated[bool, typer.Option(help="Show which tasks support each card.")] = False):
    """A table of the tasks (and, with --coverage, card → supporting tasks)."""
    from impasse.catalog.cards import load_cards
    tasks = load_or_fail(None)
    if coverage:
        table = Table(title="coverage: blocker card → tasks that support it")
        for column in ("card", "tasks", "n"):
            table.add_column(column)
        for card_id in sorted(load_cards()):
            if card_id == "none":
                continue
            ids = [t.id for t in tasks if card_id in t.supports]
            table.add_row(card_id, ", ".join(ids), f"[{'green' if len(ids) >= 2 else 'red'}]{len(ids)}[/]")
        out.print(table)
        return
    table = Table(title=f"{len(tasks)} tasks")
    for column in ("task", "project", "F2P", "P2P", "conditions", "summary"):
        table.add_column(column)
    for t in tasks:
        table.add_row(t.id, t.project.name, str(len(t.fail_to_pass)), str(len(t.pass_to_pass)),
                      ", ".join(t.supports), t.summary)
    out.print(table)


@app.command()
def validate(
    task: Annotated[list[str] | None, typer.Option(help="Only these tasks.")] = None,
    no_cache: Annotated[bool, typer.Option("--no-cache", help="Run even if a cached result exists.")] = False,
):
    """Run each task's tests in Docker: with the bug F2P fail and P2P pass; with the fix all pass."""
    from impasse.truth.validation import validate_task
    tasks = load_or_fail(task)
    api = docker_client()
    results = []
    with Progress(console=console, transient=True) as progress:
        bar = progress.add_task("validating", total=len(tasks))
        for t in tasks:
            progress.update(bar, description=f"validating {t.id}")
            results.append(validate_task(api, t, use_cache=not no_cache))
            progress.advance(bar)
    table = Table(title="task validation")
    for column in ("task", "valid", "tests", "F2P fail w/ bug", "pass w/ bug", "pass w/ fix", "s", "cached",
                   "problems"):
        table.add_column(column)
    for r in results:
        table.add_row(r.task_id, "[green]yes[/]" if r.valid else "[red]NO[/]", str(r.tests), str(r.bug_failed),
                      str(r.bug_passed), str(r.fix_passed), f"{r.seconds:.1f}", "yes" if r.cached else "",
                      "\n".join(r.problems))
    out.print(table)
    if not all(r.valid for r in results):
        raise typer.Exit(1)


@app.command()
def pin(task: Annotated[list[str], typer.Argument(help="Tasks whose PASS_TO_PASS to rewrite.")]):
    """Rewrite PASS_TO_PASS with every test that passes with the bug (for task authors)."""
    from impasse.truth.validation import passing_with_bug, pin_pass_to_pass
    tasks = load_or_fail(task)  # unknown ids are refused before Docker is touched
    api = docker_client()
    for t in tasks:
        tests = passing_with_bug(api, t)
        pin_pass_to_pass(t, tests)
        out.print(f"{t.id}: {len(tests)} PASS_TO_PASS tests")


@app.command("export")
def export(path: Path, format: Annotated[str, typer.Option("--format")] = "swesmith"):
    """Write the tasks as SWE-smith instances (JSONL)."""
    from impasse.catalog.swesmith import export_jsonl
    if format != "swesmith":
        raise fail(f"--format {format}: unknown; supported: swesmith", code=2)
    must_be_writable(path, "output")
    tasks = load_or_fail(None)
    try:
        count = export_jsonl(tasks, path)
    except OSError as err:
        raise write_failed(err, path) from None
    out.print(f"wrote {count} instances to {path}")


@app.command("import")
def import_(path: Path, repo: Annotated[Path, typer.Option(help="Local checkout of the repository.")],
            into: Annotated[Path, typer.Option(help="Tasks folder to write into.")] = TASKS):
    """Build task folders from SWE-smith instances, given a checkout of the repository."""
    from impasse.catalog.swesmith import ImportError_, import_jsonl
    must_exist([path])
    if not repo.is_dir():
        raise fail(f"--repo {repo}: not a folder", code=2)
    must_be_writable(into, "--into", folder=True)
    try:
        folders = import_jsonl(path, repo, into)
    except ImportError_ as err:
        raise fail(str(err)) from None
    except OSError as err:
        raise fail(f"{err.filename or path}: {err.strerror or err}") from None
    out.print(f"imported {len(folders)} tasks into {into}")
