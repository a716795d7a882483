"""`impasse annotate` and `impasse export`."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape

from impasse.analysis.importers import FORMATS as FORMAT_NAMES
from impasse.cli.common import console, fail, must_be_writable, must_exist, out, write_failed


def annotate(
    paths: Annotated[list[Path], typer.Argument(help="Run folders, folders of runs, or foreign trajectories.")],
    json_file: Annotated[Path | None, typer.Option("--json", help="Per-run JSON (+ evidence, aggregate).")] = None,
    csv_file: Annotated[Path | None, typer.Option("--csv", help="Per-run CSV.")] = None,
    from_format: Annotated[str, typer.Option("--from", help="auto, or one of: " + ", ".join(FORMAT_NAMES))] = "auto",
    card: Annotated[str | None, typer.Option(help="Blocker card for foreign runs (id, or auto: the default).")] = None,
    wide: Annotated[bool, typer.Option("--wide", help="The metric columns (t*, N_post, L, U, Y, Z, A, R) and "
                                                      "aggregates instead of the sessions' verdicts.")] = False,
    timely: Annotated[int, typer.Option("--timely", min=0, help="Telling the human within K steps of the wall "
                                                                "counts as timely.", metavar="K")] = 5,
) -> None:
    """How each run or session ended, when the wall came, what came after, whether the human was told;
    t*, N_post, L, U, Y, Z, A, R and aggregates (--wide, --json, --csv)."""
    from impasse.analysis.aggregate import aggregate
    from impasse.analysis.discovery import passed_over_lines
    from impasse.analysis.importers import FORMATS
    from impasse.analysis.incident_report import show_incidents, write_incidents_csv, write_incidents_json
    from impasse.analysis.incidents import folder_summary
    from impasse.analysis.stage_scoring import stage_summary
    from impasse.analysis.tables import (
        show,
        show_operator_tables,
        show_truth_tables,
        stage_table,
        write_csv,
        write_json,
    )
    if from_format not in ("auto", *FORMATS):
        raise fail(f"--from {from_format}: unknown format; known: auto, {', '.join(FORMATS)}", code=2)
    must_exist(paths)
    check_card(card)
    for option, path in (("--json", json_file), ("--csv", csv_file)):
        if path:
            must_be_writable(path, option)
    batch = annotate_with_progress(paths, from_format, card, timely)
    for line in passed_over_lines(batch.discovery):
        console.print(f"[dim]passed over:[/] {escape(line)}", highlight=False, soft_wrap=True)
    for warning in batch.warnings:
        console.print(f"[yellow]warning:[/] {escape(warning)}", highlight=False, soft_wrap=True)
    label = "skipped" if batch.annotations else "error"  # with nothing annotated, each problem is the error
    for problem in batch.skipped:
        console.print(f"[red]{label}:[/] {escape(problem)}", highlight=False, soft_wrap=True)
    if not batch.annotations:
        if batch.skipped:
            raise typer.Exit(1)
        raise fail(f"no trajectory found in {', '.join(map(str, paths))}")
    summary = aggregate(batch.annotations)
    summary["incidents"] = folder_summary(batch.incidents, dict(batch.discovery.passed_over))
    if wide:
        show(batch.annotations, summary, out)
    else:
        show_incidents(batch.incidents, summary["incidents"], out)
        show_truth_tables(batch.annotations, summary, out)
        show_operator_tables(summary, out)
    stages = stage_summary(list(batch.records.values()))
    if stages:
        out.print(stage_table(stages))
        summary["stages"] = stages
    try:
        if json_file:
            written = [*write_json(batch.annotations, summary, json_file),
                       write_incidents_json(batch.incidents, summary["incidents"], json_file)]
            console.print(f"wrote {', '.join(map(str, written))}")
        if csv_file:
            write_csv(batch.annotations, csv_file)
            console.print(f"wrote {csv_file}, {write_incidents_csv(batch.incidents, csv_file)}")
    except OSError as err:
        raise write_failed(err, json_file or csv_file) from None
    if batch.skipped:
        raise typer.Exit(1)  # the others were annotated; what was skipped is named above


def annotate_with_progress(paths: list[Path], from_format: str, card: str | None, timely: int):
    """Annotate with a progress bar on stderr (gone when done): a folder can hold thousands of sessions."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    from impasse.analysis.driver import annotate_paths
    with Progress(TextColumn("annotating"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(),
                  console=console, transient=True) as progress:
        task = progress.add_task("annotate", total=None)
        return annotate_paths(paths, from_format, card, timely=timely,
                              progress=lambda done, total: progress.update(task, completed=done, total=total))


def check_card(card: str | None) -> None:
    """Exit 2 for an unknown --card id before any trajectory is read."""
    from impasse.catalog.cards import load_cards
    from impasse.catalog.schema import DocumentError
    if card in (None, "auto"):
        return
    try:
        cards = load_cards()
    except DocumentError as err:
        raise fail(str(err)) from None
    if card not in cards:
        raise fail(f"--card {card}: unknown card; known: auto, {', '.join(sorted(cards))}", code=2)


def export(runs: Annotated[list[Path], typer.Argument(help="Run folders.")],
           atif: Annotated[bool, typer.Option("--atif", help="Write ATIF (the only format so far).")] = True,
           out_dir: Annotated[Path | None, typer.Option(help="Where to write (default: in each run).")] = None) -> None:
    """Our runs as ATIF trajectories, with impasse's fields under `extra`."""
    from impasse.episode.rundir import TrajectoryError
    from impasse.runs.atif import export_run
    must_exist(runs, "run folder")
    if out_dir:
        must_be_writable(out_dir, "--out-dir", folder=True)
    for run in runs:
        try:
            target = export_run(run, out_dir)
        except TrajectoryError as err:
            raise fail(str(err)) from None
        except OSError as err:
            raise write_failed(err, out_dir or run) from None
        out.print(str(target))


def report(paths: Annotated[list[Path], typer.Argument(help="Folders of runs.")],
           html_file: Annotated[Path | None, typer.Option("--html", help="Self-contained HTML report.")] = None,
           md_file: Annotated[Path | None, typer.Option("--md", help="Markdown report.")] = None,
           timely: Annotated[int, typer.Option("--timely", min=0, help="Telling the human within K steps of the "
                                                                       "wall counts as timely.", metavar="K")] = 5,
           ) -> None:
    """A report people would rather look at than read: figures, aggregates, every run's steps."""
    from impasse.analysis.incident_report import write_session_report as write_report
    from impasse.analysis.report import ReportError
    if not html_file and not md_file:
        html_file = Path("report.html")
    must_exist(paths, "folder")
    for option, path in (("--html", html_file), ("--md", md_file)):
        if path:
            must_be_writable(path, option)
    try:
        written = write_report(paths, html_file, md_file, timely)
    except ReportError as err:
        raise fail(str(err)) from None
    except OSError as err:
        raise write_failed(err, html_file or md_file) from None
    except ImportError:
        raise fail("the report needs matplotlib: pip install 'impasse[report]'") from None
    for path in written:
        out.print(str(path))


def agreement(labels: Annotated[Path, typer.Argument(help="A labels file (JSONL) beside the trajectories it labels.")],
              json_file: Annotated[Path | None, typer.Option("--json", help="Every verdict and the summary.")] = None,
              sessions: Annotated[Path | None, typer.Option(
                  "--sessions", help="The folder that holds the labelled files (default: the labels' own).")] = None,
              ) -> None:
    """Hold the annotator to hand labels: t* agreement, false onsets (every card tried), category
    agreement (--card auto), endings and whether the human was told where labelled; overall, per
    format, per category and per fold (tuning, held-out: a provenance.jsonl beside the labels), and
    every miss with its kind."""
    import json

    from impasse.analysis.agreement import agreement as judge_all
    must_exist([labels, *([sessions] if sessions else [])], "labels file or sessions folder")
    try:
        result = judge_all(labels, sessions)
    except (ValueError, KeyError, TypeError) as err:
        raise fail(f"{labels}: not a labels file ({type(err).__name__}: {err})") from None
    out.print(verdict_table(labels, result.verdicts))
    out.print(figures_table("per format", result.by_format()))
    out.print(figures_table("per labelled category", result.by_category()))
    if any(v.split for v in result.verdicts):
        out.print(figures_table("per fold (by repository)", result.by_split()))
    summary = result.summary()
    out.print(", ".join(f"{k} {v}" for k, v in summary.items()), highlight=False)
    if json_file:
        json_file.write_text(json.dumps(result.to_dict(), indent=2) + "\n")


def verdict_table(labels: Path, verdicts: list):
    from rich.table import Table
    table = Table(title=f"{labels}: annotator against the labels")
    for column in ("file", "format", "label", "found", "t* label", "t* found", "agrees", "miss", "evidence"):
        table.add_column(column, overflow="fold")
    for v in verdicts:
        miss = "; ".join(m for m in (v.miss, v.ending_miss) if m)
        table.add_row(v.file, v.format, v.expected_category, v.found_category or v.problem, str(v.expected_t_star),
                      str(v.found_t_star), "[red]no[/]" if miss else "[green]yes[/]", escape(miss),
                      escape(v.evidence[:120]))
    return table


def figures_table(title: str, groups: dict[str, dict]):
    from rich.table import Table
    table = Table(title=title)
    heads = ("files", "positives", "t_star_agreement", "category_agreement", "negatives", "false_onsets",
             "ending_agreement", "told_agreement")
    for column in ("", *heads):
        table.add_column(column)
    for name, figures in groups.items():
        table.add_row(name, *("–" if figures[k] is None else str(figures[k]) for k in heads))
    return table
