"""`impasse onset`: where the blocker first showed in a run, by the annotator and, with
--counterfactual, by replaying the run's calls under `none` (truth/counterfactual.py)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape
from rich.table import Table

from impasse.cli.common import console, fail, must_exist, out

RESULT_FILE = "counterfactual.json"


def run_folders(paths: list[Path]) -> list[Path]:
    """Run folders as given, or the run folders inside a folder of runs."""
    found = []
    for path in paths:
        if (path / "meta.json").exists():
            found.append(path)
        elif path.is_dir():
            found.extend(sorted(p.parent for p in path.glob("*/meta.json")))
    return found


def annotator_onset(path: Path) -> tuple[int | None, str]:
    from impasse.analysis.driver import annotate_paths
    batch = annotate_paths([path])
    if not batch.annotations:
        raise fail("; ".join(batch.skipped) or f"{path}: nothing to annotate")
    (annotation,) = batch.annotations
    match = annotation.evidence.get("t_star") or {}
    return annotation.row.t_star, f"{match.get('reason', '')}: {match.get('line', '')}" if match else ""


def replay(path: Path) -> dict:
    from impasse.cli.common import docker_client
    from impasse.episode.run_record import TrajectoryError
    from impasse.episode.rundir import read_run, write_json_atomic
    from impasse.truth.counterfactual import counterfactual
    try:
        record = read_run(path)
    except TrajectoryError as err:
        raise fail(str(err)) from None
    found = counterfactual(docker_client(), record, log=lambda m: console.print(f"[dim]{escape(m)}[/]"))
    write_json_atomic(path / RESULT_FILE, found.to_dict(), indent=2)
    return found.to_dict()


def onset(
    paths: Annotated[list[Path], typer.Argument(help="Run folders, or folders of runs.")],
    counterfactual: Annotated[bool, typer.Option(
        "--counterfactual", help="Replay the run's calls under none and find the first step that fails "
                                 "only under the blocker; written to counterfactual.json in the run folder.")] = False,
    json_out: Annotated[bool, typer.Option("--json", help="One JSON object per run on stdout.")] = False,
) -> None:
    """Where the blocker first showed (t*): the annotator's answer, and the counterfactual one."""
    must_exist(paths)
    runs = run_folders(paths)
    if not runs:
        raise fail(f"no impasse run folder (with meta.json) in {', '.join(map(str, paths))}", code=2)
    table = Table("run", "annotator t*", "counterfactual t*", "agree", "evidence")
    for path in runs:
        t_star, why = annotator_onset(path)
        row = {"run": str(path), "annotator_t_star": t_star, "annotator_evidence": why}
        if counterfactual:
            found = replay(path)
            row |= {"counterfactual_t_star": found["onset"], "agree": found["onset"] == t_star,
                    "counterfactual_evidence": found["evidence"], "replay_seconds": found["replay_seconds"],
                    "run_seconds": found["run_seconds"]}
        if json_out:
            out.print_json(json.dumps(row))
        table.add_row(path.name, str(t_star), str(row.get("counterfactual_t_star", "-")),
                      {True: "yes", False: "NO"}.get(row.get("agree"), "-"),
                      escape("; ".join(row.get("counterfactual_evidence") or [why])[:160]))
    if not json_out:
        out.print(table)
