"""`impasse tasks …`: list, validate, pin, SWE-smith export/import, and the real projects' fetch and
generate (procedural tasks over pinned PyPI projects)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Annotated

import typer
from rich.progress import Progress
from rich.table import Table

from impasse.catalog.schema import DocumentError
from impasse.cli.common import console, docker_client, fail, must_be_writable, must_exist, out, write_failed
from impasse.paths import TASKS

app = typer.Typer(no_args_is_help=True, help="The repair tasks.")


def tasks_or_fail(load):
    """`load()`'s tasks; an unknown id is a bad request (exit 2), a broken task file failed work."""
    try:
        return load()
    except KeyError as err:
        raise fail(str(err).strip("'\""), code=2) from None
    except DocumentError as err:
        raise fail(str(err)) from None


def load_or_fail(ids: list[str] | None, tasks_dir: Path = TASKS):
    from impasse.catalog.tasks import load_tasks
    return tasks_or_fail(lambda: load_tasks(ids, tasks_dir))


def any_tasks_or_fail(ids: list[str] | None):
    """Hand-written or generated tasks by id (all the hand-written ones without ids)."""
    from impasse.catalog.generated_tasks import find_task
    return tasks_or_fail(lambda: [find_task(i) for i in ids]) if ids else load_or_fail(None)


def split_or_fail(split: str | None) -> str | None:
    from impasse.catalog.generated import SPLITS
    if split is not None and split not in SPLITS:
        raise fail(f"--split {split}: unknown; known: {', '.join(SPLITS)}", code=2)
    return split


@app.command("list")
def list_tasks(coverage: Annotated[bool, typer.Option(help="Show which tasks support each card.")] = False,
               split: Annotated[str, typer.Option(help="lite (hand-written + ~50 generated, stratified by "
                                                       "project) or full (all).")] = "full"):
    """A table of the tasks (and, with --coverage, card → supporting tasks)."""
    from impasse.catalog.cards import load_cards
    from impasse.catalog.generated_tasks import generated_tasks
    tasks = load_or_fail(None)
    generated = generated_tasks(split_or_fail(split))
    if coverage:
        table = Table(title=f"coverage ({split}): blocker card → tasks that support it")
        for column in ("card", "hand-written", "generated", "n"):
            table.add_column(column)
        for card_id in sorted(load_cards()):
            if card_id == "none":
                continue
            ids = [t.id for t in tasks if card_id in t.supports]
            made = Counter(g.project.name for g in generated if card_id in g.supports)
            n = len(ids) + sum(made.values())
            table.add_row(card_id, ", ".join(ids), ", ".join(f"{p} {c}" for p, c in sorted(made.items())),
                          f"[{'green' if n >= 2 else 'red'}]{n}[/]")
        out.print(table)
        projects = Counter(f"{g.real.name} {g.real.version}" for g in generated)
        table = Table(title=f"generated tasks ({split}) by project")
        for column in ("project", "tasks"):
            table.add_column(column)
        for name, count in sorted(projects.items()):
            table.add_row(name, str(count))
        out.print(table)
        return
    table = Table(title=f"{len(tasks)} hand-written tasks")
    for column in ("task", "project", "F2P", "P2P", "conditions", "summary"):
        table.add_column(column)
    for t in tasks:
        table.add_row(t.id, t.project.name, str(len(t.fail_to_pass)), str(len(t.pass_to_pass)),
                      ", ".join(t.supports), t.summary)
    out.print(table)
    table = Table(title=f"{len(generated)} generated tasks ({split})")
    for column in ("task", "project", "F2P", "P2P", "conditions"):
        table.add_column(column)
    for g in generated:
        table.add_row(g.id, f"{g.real.name} {g.real.version}", str(len(g.fail_to_pass)), str(len(g.pass_to_pass)),
                      ", ".join(g.supports))
    out.print(table)


@app.command()
def validate(
    task: Annotated[list[str] | None, typer.Option(help="Only these tasks.")] = None,
    no_cache: Annotated[bool, typer.Option("--no-cache", help="Run even if a cached result exists.")] = False,
    split: Annotated[str | None, typer.Option(help="Also the generated tasks of this split (lite or full).")] = None,
    fail_to_pass_only: Annotated[bool, typer.Option("--fail-to-pass-only", help="Only FAIL_TO_PASS, with the bug "
                                                    "and with the fix (P2P is proved at generation).")] = False,
    workers: Annotated[int, typer.Option(min=1, help="Tasks validated at once.")] = 1,
    drop_invalid: Annotated[bool, typer.Option("--drop-invalid", help="Take invalid generated tasks out of "
                                                "their project's set (counted as rejected).")] = False,
):
    """Run each task's tests in a fresh container: with the bug F2P fail and P2P pass; with the fix
    all pass."""
    from concurrent.futures import ThreadPoolExecutor

    from impasse.catalog.generated_tasks import generated_tasks
    from impasse.proving.validation import validate_task
    split_or_fail(split)
    tasks = any_tasks_or_fail(task) + (list(generated_tasks(split)) if split else [])
    api = docker_client()
    with Progress(console=console, transient=True) as progress, ThreadPoolExecutor(workers) as pool:
        bar = progress.add_task("validating", total=len(tasks))

        def one(t):
            result = validate_task(api, t, use_cache=not no_cache, fail_to_pass_only=fail_to_pass_only)
            progress.advance(bar)
            return result
        results = list(pool.map(one, tasks))
    table = Table(title="task validation")
    for column in ("task", "valid", "tests", "F2P fail w/ bug", "pass w/ bug", "pass w/ fix", "s", "cached",
                   "problems"):
        table.add_column(column)
    for r in results:
        table.add_row(r.task_id, "[green]yes[/]" if r.valid else "[red]NO[/]", str(r.tests), str(r.bug_failed),
                      str(r.bug_passed), str(r.fix_passed), f"{r.seconds:.1f}", "yes" if r.cached else "",
                      "\n".join(r.problems))
    out.print(table)
    if drop_invalid:
        drop_invalid_generated(tasks, results)
    seconds = sum(r.seconds for r in results if not r.cached)
    out.print(f"{sum(r.valid for r in results)}/{len(results)} valid; {seconds:.0f} container-seconds for "
              f"{sum(not r.cached for r in results)} run now")
    if not all(r.valid for r in results):
        raise typer.Exit(1)


def drop_invalid_generated(tasks, results) -> None:
    from impasse.catalog.generated import drop_tasks
    invalid = {r.task_id for r in results if not r.valid}
    for real in {t.real.name: t.real for t in tasks if t.real and t.id in invalid}.values():
        ids = {t.id for t in tasks if t.real and t.real.name == real.name and t.id in invalid}
        count = drop_tasks(real, ids, "invalid in a fresh container (impasse tasks validate)")
        out.print(f"{real.key}: dropped {count} invalid generated task(s): {', '.join(sorted(ids))}")


@app.command()
def pin(task: Annotated[list[str], typer.Argument(help="Tasks whose PASS_TO_PASS to rewrite.")]):
    """Rewrite PASS_TO_PASS with every test that passes with the bug (for task authors)."""
    from impasse.proving.validation import passing_with_bug, pin_pass_to_pass
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
    from impasse.catalog.generated import load_generated
    tasks = load_or_fail(None)
    try:
        count = export_jsonl(tasks, path, load_generated())
    except OSError as err:
        raise write_failed(err, path) from None
    out.print(f"wrote {count} instances to {path}")


@app.command("import")
def import_(path: Path, repo: Annotated[Path | None, typer.Option(
                help="Local checkout of the repository (for instances not generated by impasse).")] = None,
            into: Annotated[Path, typer.Option(help="Tasks folder to write into.")] = TASKS):
    """Build task folders from SWE-smith instances, given a checkout of the repository; generated
    instances (repo pypi/<name>) join their pinned project's tasks under tasks/pypi/."""
    from impasse.catalog.swesmith import ImportError_, import_jsonl
    must_exist([path])
    if repo is not None and not repo.is_dir():
        raise fail(f"--repo {repo}: not a folder", code=2)
    must_be_writable(into, "--into", folder=True)
    try:
        folders = import_jsonl(path, repo, into, into / "pypi")
    except ImportError_ as err:
        raise fail(str(err)) from None
    except OSError as err:
        raise fail(f"{err.filename or path}: {err.strerror or err}") from None
    out.print(f"imported {len(folders)} tasks into {into}")


def real_projects_or_fail(names: list[str] | None):
    from impasse.catalog.projects import PinError, get_real_project, load_real_projects
    try:
        return [get_real_project(n) for n in names] if names else list(load_real_projects().values())
    except KeyError as err:
        raise fail(str(err).strip("'\""), code=2) from None
    except PinError as err:
        raise fail(str(err)) from None


def log_line(message: str) -> None:
    console.print(message, highlight=False)


def stage_project(api, project):
    """A pinned project fetched (sdist checked, wheelhouse) and its image built; a bad pin or a failed
    build is a clean error."""
    from impasse.catalog.projects import PinError
    from impasse.infra.images import ImageBuildError
    from impasse.infra.projects import ensure_project_image
    from impasse.infra.projects import fetch as fetch_project
    try:
        fetched = fetch_project(project)
        return fetched, ensure_project_image(api, fetched, log_line)
    except (PinError, ImageBuildError) as err:
        raise fail(str(err)) from None


@app.command()
def fetch(project: Annotated[list[str] | None, typer.Argument(help="Projects (default: all pinned).")] = None):
    """Download each real project's pinned sdist (sha256 checked) and wheelhouse, and build its image."""
    import time
    projects = real_projects_or_fail(project)
    api = docker_client()
    for p in projects:
        started = time.monotonic()
        _, image = stage_project(api, p)
        size = api.images.get(image).attrs.get("Size", 0) / 1024**2
        out.print(f"{p.key}: {image} ({size:.0f} MB) in {time.monotonic() - started:.1f}s")


@app.command()
def generate(
    project: Annotated[list[str] | None, typer.Argument(help="Projects (default: all pinned).")] = None,
    seed: Annotated[int, typer.Option(help="Fixes which candidates are tried, in which order.")] = 0,
    max_tasks: Annotated[int, typer.Option(help="Stop a project after keeping this many.")] = 30,
    max_candidates: Annotated[int, typer.Option(help="Stop a project after trying this many.")] = 200,
    budget: Annotated[float, typer.Option(help="Stop a project after this many seconds.")] = 900,
    rewriter: Annotated[str | None, typer.Option(help="Rewrite each statement with this model "
                                                      "(openai:<model> or anthropic:<model>).")] = None,
    base_url: Annotated[str | None, typer.Option(help="The rewriter's endpoint.")] = None,
    resume: Annotated[bool, typer.Option(help="Go on from the saved tasks, skipping candidates already judged.")]
        = False,
):
    """Procedural bugs over each project's own functions, kept only when its suite proves them
    (1–20 tests pass → fail, every other test still passes); written to tasks/pypi/<name>-<version>/."""
    from impasse.proving.generation import generate as generate_project
    projects = real_projects_or_fail(project)
    rewrite = statement_rewriter(rewriter, base_url) if rewriter else None
    api = docker_client()
    table = Table(title="generation")
    for column in ("project", "baseline tests", "tried", "kept", "kept/CPU-min", "s", "rejected"):
        table.add_column(column)
    for p in projects:
        fetched, image = stage_project(api, p)
        try:
            _, stats = generate_project(api, fetched, image, seed, max_tasks, max_candidates, budget, log=log_line,
                                        rewrite=rewrite, resume=resume)
        except RuntimeError as err:
            raise fail(str(err)) from None
        table.add_row(p.key, str(stats.baseline_tests), str(stats.tried), str(stats.kept),
                      str(stats.kept_per_cpu_minute), str(stats.wall_seconds),
                      ", ".join(f"{k}: {v}" for k, v in sorted(stats.rejected.items())))
    out.print(table)


def statement_rewriter(spec: str, base_url: str | None):
    """A model that rewrites statements, refused before Docker when it cannot work; a rewrite that
    fails on the way (the endpoint down, retries spent) keeps the template and says so."""
    from impasse.models import ModelSpecError, TransportError, check_spec, make_model, parse_spec
    from impasse.models.rewriter import rewrite_statement
    try:
        if parse_spec(spec)[0] == "scripted":
            raise ModelSpecError(f"--rewriter {spec}: a scripted policy writes no prose; use openai:<model> "
                                 "or anthropic:<model>")
        check_spec(spec, base_url)
    except ModelSpecError as err:
        raise fail(str(err), code=2) from None
    model = make_model(spec, base_url=base_url)

    def rewrite(statement: str, hidden: tuple[str, ...]) -> tuple[str, bool]:
        try:
            return rewrite_statement(model, statement, hidden)
        except TransportError as err:
            log_line(f"rewriter {spec}: {err}; the template statement is kept")
            return statement, False
    return rewrite
