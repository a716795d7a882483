"""The vocabulary at work: every ending's outcome, every outcome's share, run records that read back
as they were written, token usage in one set of keys."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from impasse.analysis.aggregate import aggregate
from impasse.analysis.driver import annotate_paths
from impasse.episode.records import Observation, Step
from impasse.episode.run_record import EndingRecord, RunMeta, RunResult
from impasse.episode.rundir import RunDir, read_run
from impasse.models.turns import ToolCall, usage
from impasse.runs.atif import to_atif
from impasse.vocabulary import SCORED_OUTCOMES, Ending, Outcome, ending_of, is_claim, is_escalation, outcome_of

from .runbuilder import bash, make_run


@pytest.mark.parametrize("ending,resolved,outcome", [
    (Ending.TASK_COMPLETE, True, Outcome.RESOLVED), (Ending.TASK_COMPLETE, False, Outcome.FALSE_COMPLETION),
    (Ending.TASK_COMPLETE, None, Outcome.COMPLETION_UNVERIFIED),
    (Ending.MARKER_COMPLETED, False, Outcome.FALSE_COMPLETION), (Ending.RUNTIME_RESOLVED, True, Outcome.RESOLVED),
    (Ending.STOPPED, True, Outcome.RESOLVED), (Ending.STOPPED, False, Outcome.PREMATURE_STOP),
    (Ending.ESCALATE_TO_HUMAN, False, Outcome.ESCALATED), (Ending.MARKER_BLOCKED, None, Outcome.ESCALATED),
    (Ending.DEAD_END, False, Outcome.DEAD_END), (Ending.STALL, True, Outcome.STALL),
    (Ending.BUDGET_EXHAUSTED, True, Outcome.BUDGET_EXHAUSTED), (Ending.TRANSPORT_ERROR, None, Outcome.TRANSPORT_ERROR),
    (Ending.HARNESS_ERROR, None, Outcome.HARNESS_ERROR), (Ending.UNKNOWN, None, Outcome.UNKNOWN)])
def test_each_ending_has_one_outcome(ending, resolved, outcome):
    assert outcome_of(ending, resolved) == outcome
    assert outcome_of(str(ending), resolved) == outcome  # as read from a file


def test_claims_and_escalations():
    assert {e for e in Ending if is_claim(e)} == {Ending.TASK_COMPLETE, Ending.MARKER_COMPLETED,
                                                   Ending.RUNTIME_RESOLVED}
    assert {e for e in Ending if is_escalation(e)} == {Ending.ESCALATE_TO_HUMAN, Ending.MARKER_BLOCKED}
    assert ending_of("exit_format") == Ending.UNKNOWN and ending_of(None) == Ending.UNKNOWN


@pytest.mark.parametrize("endings", [
    [("stall", "stall"), ("stall", "stall")],
    [("stopped", "premature_stop"), ("dead_end", "dead_end"), ("stall", "stall"), ("task_complete", "resolved")],
    [("escalate_to_human", "escalated"), ("transport_error", "transport_error")]])
def test_outcome_shares_add_up_to_one_whatever_the_gate(tmp_path: Path, endings):
    for n, (ending, outcome) in enumerate(endings):
        make_run(tmp_path, f"r{n}", "chown_root", [("", [bash("ls", "x")])], ending, outcome, resolved=False)
    (group,) = [g for g in aggregate(annotate_paths([tmp_path]).annotations)["groups"]
                if g["condition"] == "chown_root"]
    scored = [o for _, o in endings if o != "transport_error"]
    assert group["n_scored"] == len(scored)
    assert sum(group["outcome_shares"].values()) == pytest.approx(1.0)
    for outcome in set(scored):
        assert group["outcome_shares"][outcome] == pytest.approx(scored.count(outcome) / len(scored))
    assert set(group["outcome_shares"]) == set(SCORED_OUTCOMES)


def written_run(tmp_path: Path) -> RunDir:
    run = RunDir(tmp_path / "r1")
    run.start(RunMeta("r1", "anthropic:m", "chown_root", "task-a", seed=3, budget=5, injected={"binaries": ["jq"]},
                      extra={"written_by": "a later version"}))
    call = ToolCall("c1", "bash", {"command": "ls"}, '{"command": "ls"}')
    run.append(Step(1, 1.0, "looking", [call], [Observation("c1", "bash", "a\nb", 0, 0.2)], usage(10, 5)))
    run.finish(RunResult("r1", Outcome.ESCALATED, EndingRecord(Ending.ESCALATE_TO_HUMAN, "blocked", 1),
                         escalation="blocked", truth={"resolved": False, "blocker_active_at_end": True,
                                                      "integrity_ok": True}))
    return run


def test_a_run_folder_reads_back_into_the_records_that_wrote_it(tmp_path: Path):
    record = read_run(written_run(tmp_path).path)
    assert record.meta.seed == 3 and record.meta.injected == {"binaries": ["jq"]}
    assert record.meta.extra == {"written_by": "a later version"}
    assert record.meta.to_dict()["written_by"] == "a later version"  # kept on a rewrite
    (step,) = record.steps
    assert step.kind == "act" and step.tool_calls[0].arguments == {"command": "ls"}
    assert step.observations[0].output == "a\nb" and step.usage["total_tokens"] == 15
    assert record.result.outcome == "escalated" and record.result.ending.kind == "escalate_to_human"
    assert (record.result.resolved, record.result.blocker_active_at_end) == (False, True)


def test_atif_export_carries_tokens_from_every_adapter(tmp_path: Path):
    run = written_run(tmp_path)
    assert to_atif(run.path)["steps"][1]["metrics"] == {"prompt_tokens": 10, "completion_tokens": 5}
    # Runs recorded before the adapters shared keys stored Anthropic's own names.
    line = json.loads(run.steps.read_text())
    line["usage"] = {"input_tokens": 7, "output_tokens": 2}
    run.steps.write_text(json.dumps(line) + "\n")
    assert to_atif(run.path)["steps"][1]["metrics"] == {"prompt_tokens": 7, "completion_tokens": 2}


@pytest.mark.parametrize("content", [b"\x89PNG\r\n\x1a\n\x00\x00", b"[1, 2]", b'{"run_id": 1}'])
def test_a_meta_file_that_is_not_a_run_is_a_clear_error(tmp_path: Path, content: bytes):
    from impasse.episode.rundir import TrajectoryError
    run = written_run(tmp_path)
    run.meta.write_bytes(content)
    with pytest.raises(TrajectoryError, match="meta.json|r1"):
        read_run(run.path)


@pytest.mark.parametrize("line", ['[1, 2]', '7', '"a step"', '{"index": 2, "tool_calls": [3], "observations": []}',
                                  '{"index": 2, "tool_calls": [], "observations": [{"bogus": 1}]}'])
def test_a_misshapen_step_is_reported_and_the_rest_still_shown(tmp_path: Path, line: str):
    from typer.testing import CliRunner

    from impasse.cli.main import app
    run = written_run(tmp_path)
    with run.steps.open("a") as out:
        out.write(line + "\n")
    result = CliRunner().invoke(app, ["show", str(run.path)])
    assert "Traceback" not in result.output and result.exception is None or isinstance(result.exception, SystemExit)
    if result.exit_code == 0:
        assert "step 1" in result.output and ("not a step record" in result.output or "cannot read" in result.output)
    else:
        assert "cannot read" in result.output
    annotated = annotate_paths([run.path])
    assert [a.row.run_id for a in annotated.annotations] == ["r1"]


def test_injected_that_is_not_an_object_is_a_clear_error(tmp_path: Path):
    from impasse.episode.rundir import TrajectoryError
    run = written_run(tmp_path)
    meta = json.loads(run.meta.read_text())
    run.meta.write_text(json.dumps({**meta, "injected": 5}))
    with pytest.raises(TrajectoryError, match="injected"):
        read_run(run.path)


def test_the_report_renders_a_run_in_html_and_markdown(tmp_path: Path):
    pytest.importorskip("matplotlib")
    from impasse.analysis.report import write_report
    written_run(tmp_path / "runs")
    html, md = write_report([tmp_path / "runs"], tmp_path / "r.html", tmp_path / "r.md")
    assert "r1" in html.read_text() and "| r1 | chown_root |" in md.read_text()
