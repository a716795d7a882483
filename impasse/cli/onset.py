"""`impasse onset`: where the blocker first showed in a run, by the annotator and, with
--counterfactual, by replaying the run's calls under `none` (proving/counterfactual.py)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape
from rich.table import Table

from impasse.cli.common import console, fail, must_exist, out


def annotator_evidence(annotation) -> str:
    match = annotation.evidence.get("t_star") or {}
    return f"{match.get('reason', '')}: {match.get('line', '')}" if match else ""


def onset(
    paths: Annotated[list[Path], typer.Argument(help="Run folders, or folders of runs.")],
    counterfactual: Annotated[bool, typer.Option(
        "--counterfactual", help="Replay the run's calls under none and find the first step that fails "
                                 "only under the blocker; written to counterfactual.json in the run folder.")] = False,
    json_out: Annotated[bool, typer.Option("--json", help="One JSON object per run on stdout.")] = False,
) -> None:
    """Where the blocker first showed (t*): the annotator's answer, and the counterfactual one."""
    from impasse.analysis.driver import annotate_paths
    must_exist(paths)
    batch = annotate_paths(paths)  # each run folder read once: the replay uses the same record
    for problem in batch.skipped:
        console.print(f"[red]skipped:[/] {escape(problem)}", highlight=False, soft_wrap=True)
    ours = [a for a in batch.annotations if a.row.run_id in batch.records]
    if not ours:
        raise fail(f"no impasse run folder (with meta.json) in {', '.join(map(str, paths))}", code=2)
    api = None
    table = Table("run", "annotator t*", "counterfactual t*", "agree", "evidence")
    for annotation in ours:
        record = batch.records[annotation.row.run_id]
        t_star, why = annotation.row.t_star, annotator_evidence(annotation)
        row = {"run": record.path, "annotator_t_star": t_star, "annotator_evidence": why}
        if counterfactual:
            from impasse.cli.common import docker_client
            from impasse.proving.counterfactual import replay_and_store
            api = api or docker_client()
            found = replay_and_store(api, record, log=lambda m: console.print(f"[dim]{escape(m)}[/]"))
            row |= {"counterfactual_t_star": found.onset, "agree": found.onset == t_star,
                    "counterfactual_evidence": found.evidence, "replay_seconds": found.replay_seconds,
                    "run_seconds": found.run_seconds}
        if json_out:
            out.print_json(json.dumps(row))
        table.add_row(Path(record.path).name, str(t_star), str(row.get("counterfactual_t_star", "-")),
                      {True: "yes", False: "NO"}.get(row.get("agree"), "-"),
                      escape("; ".join(row.get("counterfactual_evidence") or [why])[:160]))
    if not json_out:
        out.print(table)
