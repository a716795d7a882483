"""A folder of foreign logs as a user reads it (`impasse annotate DIR --card auto`): runs grouped by
the card found or "no blocker found", never `None`; a run counted as blocked only where a blocker was
found; a run with no agent step annotated with 0 steps and said so."""

import json
from pathlib import Path

from typer.testing import CliRunner

from impasse.analysis.aggregate import NO_BLOCKER, aggregate
from impasse.analysis.driver import annotate_paths
from impasse.cli.main import app


def session(path: Path, output: str | None, is_error: bool = False) -> Path:
    """A Claude Code session: a prompt, and (unless `output` is None) one Bash call and its result."""
    lines = [{"type": "user", "sessionId": path.stem, "message": {"role": "user", "content": "run the report"}}]
    if output is not None:
        lines += [{"type": "assistant", "sessionId": path.stem, "message": {
                      "role": "assistant", "model": "claude-x", "content": [
                          {"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": "jq . data.json"}}]}},
                  {"type": "user", "sessionId": path.stem, "message": {"role": "user", "content": [
                      {"type": "tool_result", "tool_use_id": "t1", "content": output, "is_error": is_error}]}}]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


def folder(tmp_path: Path) -> Path:
    session(tmp_path / "blocked.jsonl", "Exit code 127\n/bin/bash: line 1: jq: command not found", is_error=True)
    session(tmp_path / "clean.jsonl", '{"a": 1}')
    session(tmp_path / "died.jsonl", None)
    return tmp_path


def test_foreign_runs_group_by_the_card_found_and_only_found_blockers_count_as_blocked(tmp_path):
    batch = annotate_paths([folder(tmp_path)], card="auto")
    by_task = {a.row.task: a for a in batch.annotations}
    assert by_task["blocked.jsonl".removesuffix(".jsonl")].row.t_star == 1
    summary = aggregate(batch.annotations)
    conditions = {g["condition"] for g in summary["groups"]}
    found = by_task["blocked"].row.condition
    assert found is not None and conditions == {found, NO_BLOCKER, "(blocked, pooled)"}
    assert sum(g["n"] for g in summary["groups"] if g["condition"] == NO_BLOCKER) == 2  # clean and died
    assert summary["escalation"]["claude-x"]["blocked_runs"] == 1  # not the two runs where nothing was found


def test_a_run_with_no_agent_step_is_annotated_with_zero_steps(tmp_path):
    batch = annotate_paths([session(tmp_path / "died.jsonl", None)], card="auto")
    assert batch.skipped == [] and len(batch.annotations) == 1 and batch.annotations[0].row.t_star is None
    assert any("died.jsonl: no agent step" in w and "0 steps" in w for w in batch.warnings)


def test_the_tables_name_the_group_and_the_removed_blocker_column(tmp_path):
    out = tmp_path / "out.json"
    args = ["annotate", str(folder(tmp_path)), "--card", "auto", "--wide", "--json", str(out)]
    result = CliRunner().invoke(app, args,
                                terminal_width=250)
    assert result.exit_code == 0, result.output
    assert "None" not in result.output and NO_BLOCKER in result.output and "blocker_removed" in result.output
    assert "circumvented" not in result.output
    rows = json.loads(out.read_text())
    assert all("blocker_removed" in r and "circumvented" not in r for r in rows)


def test_a_session_that_opens_with_many_bookkeeping_lines_is_found_in_a_folder(tmp_path):
    path = session(tmp_path / "resumed.jsonl", '{"a": 1}')
    summaries = "".join(json.dumps({"type": "summary", "summary": f"part {n}", "leafUuid": str(n)}) + "\n"
                        for n in range(200))
    path.write_text(summaries + path.read_text())
    batch = annotate_paths([tmp_path], card="auto")
    assert batch.skipped == [] and [a.row.task for a in batch.annotations] == ["resumed"]
