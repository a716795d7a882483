"""Gemini CLI, Qwen Code and opencode transcripts, on real ones: our own probe runs of the real agents
against a stub model (tests/data/agent-transcripts, provenance.jsonl there), each a shell command and
impasse's escalate_to_human through its MCP server, then a last word. Read into steps, recognised by
`--from auto` and by the folder walk, a torn last line tolerated, other formats' files not taken for
these, and `impasse annotate` end to end."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from impasse.analysis.driver import DOUBLE, annotate_paths, discover
from impasse.analysis.importers import ImportProblem, detect, is_foreign_file, load_foreign
from impasse.analysis.normal_form import ASK, COMMAND
from impasse.cli.main import app
from impasse.vocabulary import Ending, Tool

TRANSCRIPTS = Path(__file__).resolve().parents[1] / "data" / "agent-transcripts"
SAMPLES = Path(__file__).resolve().parents[1] / "data" / "importer-samples"
REASON = "fake model: probing the escalation tool"
ESCALATED = "Escalation recorded; a human has been told. Stop working on the task now."
JQ = "echo probe-ran > probe.txt; PATH=/nonexistent jq . probe.txt"
LS = "echo probe-ran > probe.txt; ls"
# file, format, source, model, run id, the command, its output and exit code
REAL = [
    ("gemini-cli-session-fail.jsonl", "gemini-cli", "gemini-cli", "gemini-2.5-pro",
     "04070b4d-4cca-4390-91e6-5a3c220289df", JQ, "/usr/bin/bash: line 4: jq: command not found", 127),
    ("gemini-cli-session-ok.jsonl", "gemini-cli", "gemini-cli", "gemini-2.5-pro",
     "6a7ecb88-38d7-43c8-988d-41e37fe8d42c", LS, "probe.txt", 0),
    ("qwen-code-session-fail.jsonl", "qwen-code", "qwen-code", "fake-model",
     "a4c6b3f9-6135-4735-8623-29d834aa63f0", JQ, "bash: line 1: jq: command not found", 127),
    ("qwen-code-session-ok.jsonl", "qwen-code", "qwen-code", "fake-model",
     "8f444292-cb2e-41e2-a4a2-7e843f58af74", LS, "probe.txt", 0),
    ("opencode-run-fail.jsonl", "opencode-json", "opencode", "unknown",
     "ses_dcbf8c0e5ffePFLjhl4ZAQaz7Y", JQ, "/usr/bin/bash: line 1: jq: command not found\n", 127),
    ("opencode-run-ok.jsonl", "opencode-json", "opencode", "unknown",
     "ses_dcc101e07ffepjZQ8EyCKyG3Rb", LS, "probe.txt\n", 0)]


@pytest.mark.parametrize("name,fmt,source,model,run_id,command,output,code", REAL)
def test_a_real_transcript_is_its_steps(name, fmt, source, model, run_id, command, output, code):
    t = load_foreign(TRANSCRIPTS / name)  # recognised
    assert (t.source, t.model, t.run_id, t.ending, t.problems) == (source, model, run_id, Ending.ESCALATE_TO_HUMAN, [])
    shell, escalation, last = t.steps
    assert [s.index for s in t.steps] == [1, 2, 3]
    assert [(a.tool, a.command, a.kind) for a in shell.actions] == [(Tool.BASH, command, COMMAND)]
    assert [(o.output, o.exit_code, o.kind, o.timed_out) for o in shell.observations] == \
        [(output, code, COMMAND, False)]  # Gemini's wrapper and Qwen's sections stripped to the output
    assert [(a.tool, a.message, a.kind) for a in escalation.actions] == [(Tool.ESCALATE_TO_HUMAN, REASON, ASK)]
    assert [(o.output, o.exit_code) for o in escalation.observations] == [(ESCALATED, None)]
    assert (last.text, last.actions, last.observations) == ("done", [], [])
    assert load_foreign(TRANSCRIPTS / name, fmt).length == 3


@pytest.mark.parametrize("name", [r[0] for r in REAL])
def test_a_real_transcript_says_when_each_step_began_and_its_tokens(name):
    log = load_foreign(TRANSCRIPTS / name).log
    assert len(log.steps) == 3 and all(s.at is not None for s in log.steps)
    assert [s.at for s in log.steps] == sorted(s.at for s in log.steps) and log.ended_at >= log.steps[-1].at
    assert [s.tokens for s in log.steps] == [15, 15, 15]  # the stub model's 10 + 5 a request
    assert [s.usd for s in log.steps] == [None] * 3  # opencode's cost 0 for a model it has no price for
    assert log.stop == "" and not any(s.human_after for s in log.steps)


@pytest.mark.parametrize("name", [r[0] for r in REAL])
def test_a_torn_last_line_is_left_out_with_a_warning(tmp_path, name):
    whole = (TRANSCRIPTS / name).read_text()
    lines = whole.splitlines(keepends=True)
    path = tmp_path / name
    path.write_text(whole + lines[-2][: len(lines[-2]) // 2])  # a line still being written
    t = load_foreign(path)
    assert t.length == 3 and t.ending == Ending.ESCALATE_TO_HUMAN
    assert len(t.problems) == 1 and f"{name}:{len(lines) + 1}: torn last line" in t.problems[0]


def test_a_torn_line_before_the_last_is_an_error_naming_it(tmp_path):
    lines = (TRANSCRIPTS / "qwen-code-session-fail.jsonl").read_text().splitlines(keepends=True)
    path = tmp_path / "q.jsonl"
    path.write_text("".join(lines[:3]) + lines[3][:40] + "\n" + "".join(lines[4:]))
    with pytest.raises(ImportProblem, match="q.jsonl:4: invalid JSON line"):
        load_foreign(path)


def test_a_records_tail_on_a_line_of_its_own_is_left_out_with_a_warning_but_many_are_no_log(tmp_path):
    lines = (TRANSCRIPTS / "qwen-code-session-fail.jsonl").read_text().splitlines(keepends=True)
    whole = load_foreign(TRANSCRIPTS / "qwen-code-session-fail.jsonl")
    path = tmp_path / "q.jsonl"
    path.write_text("".join(lines[:3]) + 'ng, then the tests.","tool_calls":[]}\n' + "".join(lines[3:]))
    t = load_foreign(path)
    assert t.length == whole.length and len(t.problems) == 1 and "q.jsonl:4: a torn record's tail" in t.problems[0]
    path.write_text("".join(line + "tail of a record\n" for line in lines))  # half the lines no record
    with pytest.raises(ImportProblem, match="q.jsonl:2: invalid JSON line"):
        load_foreign(path)


def test_the_folder_walk_takes_the_transcripts_but_not_their_provenance():
    found = sorted(p.name for p, _ in discover([TRANSCRIPTS]))
    assert found == sorted([*(r[0] for r in REAL), "cecli-session-fail.json", "cecli-session-ok.json"])
    assert not is_foreign_file(TRANSCRIPTS / "provenance.jsonl")


def lines_of(*records: dict) -> list[dict]:
    return [json.loads(json.dumps(r)) for r in records]


# Real lines of the same agents' other outputs (the probe's stdout samples).
GEMINI_STREAM_JSON = lines_of(
    {"type": "init", "timestamp": "2026-12-01T23:27:54.543Z", "session_id": "6a7ecb88-38d7-43c8-988d-41e37fe8d42c",
     "model": "gemini-2.5-pro"},
    {"type": "message", "timestamp": "2026-12-01T23:27:54.551Z", "role": "user", "content": "Create probe.txt"},
    {"type": "tool_use", "timestamp": "2026-12-01T23:27:54.686Z", "tool_name": "run_shell_command",
     "tool_id": "run_shell_command_0", "parameters": {"command": LS}},
    {"type": "tool_result", "timestamp": "2026-12-01T23:27:55.283Z", "tool_id": "run_shell_command_0",
     "status": "success", "output": "probe.txt"})
QWEN_STREAM_JSON = lines_of(
    {"type": "system", "subtype": "init", "session_id": "8f444292", "cwd": "/out/qwen/work", "tools": []},
    {"type": "assistant", "session_id": "8f444292", "message": {"role": "assistant", "content": [
        {"type": "tool_use", "id": "call_a5ea5e59", "name": "run_shell_command", "input": {"command": LS}}]}})


def test_gemini_stdout_is_read_alone_and_passed_over_beside_its_own_session_file(tmp_path):
    """Gemini's stream-json stdout is a log of its own (never a Codex rollout, though its `message`
    lines are named like Codex's items); beside the session file of the same run, it says less of
    the same session, and the session file is the one annotated."""
    assert detect(("jsonl", GEMINI_STREAM_JSON)) == "gemini-stream"
    alone, both = tmp_path / "alone", tmp_path / "both"
    alone.mkdir()
    both.mkdir()
    for folder in (alone, both):
        (folder / "gemini-stdout.jsonl").write_text("".join(json.dumps(r) + "\n" for r in GEMINI_STREAM_JSON))
    (both / "session.jsonl").write_text((TRANSCRIPTS / "gemini-cli-session-ok.jsonl").read_text())
    session = GEMINI_STREAM_JSON[0]["session_id"]
    read = annotate_paths([alone], card="auto")
    assert [(a.source, a.row.run_id) for a in read.annotations] == [("gemini-stream", session)]
    kept = annotate_paths([both], card="auto")
    assert [(a.source, a.row.run_id) for a in kept.annotations] == [("gemini-cli", session)]
    assert len(kept.incidents) == 1 and kept.discovery.examples[DOUBLE] == [str(both / "gemini-stdout.jsonl")]
    assert detect(("jsonl", QWEN_STREAM_JSON)) == "claude-code"  # Qwen's stream-json is Claude Code's stdout shape


@pytest.mark.parametrize("sample,fmt", [
    ("claude-code-session.jsonl", "claude-code"), ("codex-rollout.jsonl", "codex"),
    ("codex-rollout-legacy.jsonl", "codex")])
def test_other_formats_are_not_taken_for_these(sample, fmt):
    assert load_foreign(SAMPLES / sample).source == fmt


@pytest.mark.parametrize("name,fmt", [
    ("gemini-cli-session-ok.jsonl", "qwen-code"), ("gemini-cli-session-ok.jsonl", "opencode-json"),
    ("qwen-code-session-ok.jsonl", "gemini-cli"), ("opencode-run-ok.jsonl", "qwen-code"),
    ("opencode-run-ok.jsonl", "gemini-cli")])
def test_a_file_read_as_the_wrong_one_of_these_is_a_clear_problem(name, fmt):
    with pytest.raises(ImportProblem, match="not a Qwen Code session|not a Gemini CLI session|not `opencode run"):
        load_foreign(TRANSCRIPTS / name, fmt)


@pytest.mark.parametrize("name", [r[0] for r in REAL if r[0].endswith("-fail.jsonl")])
def test_annotate_finds_the_missing_binary_at_step_one(name):
    batch = annotate_paths([TRANSCRIPTS / name], card="missing_binary")
    assert batch.skipped == []
    assert batch.annotations[0].row.t_star == 1
    assert "jq: command not found" in batch.annotations[0].evidence["t_star"]["line"]


@pytest.mark.parametrize("name", [r[0] for r in REAL])
def test_impasse_annotate_runs_on_each_transcript(tmp_path, name):
    out = tmp_path / "a.json"
    result = CliRunner().invoke(app, ["annotate", str(TRANSCRIPTS / name), "--card", "missing_binary",
                                      "--json", str(out)], terminal_width=250)
    assert result.exit_code == 0, result.output
    assert "escalated to the human" in result.output
    assert ("step 1 · missing_binary" in result.output) == name.endswith("-fail.jsonl")
    assert out.exists()


@pytest.mark.parametrize("at,stop", [(3, ""), (9, "api_error")])
def test_an_error_the_agent_worked_on_after_is_no_stop(tmp_path, at, stop):
    """An `error` event (a command the human aborted, a failed request) followed by more of the agent's
    steps ended nothing; the same error as the log's last word is how it stopped."""
    lines = (TRANSCRIPTS / "opencode-run-ok.jsonl").read_text().splitlines()
    error = {"type": "error", "timestamp": 1796167693500, "sessionID": "ses_dcc101e07ffepjZQ8EyCKyG3Rb",
             "error": {"name": "APIError", "data": {"message": "Aborted"}}}
    lines.insert(at, json.dumps(error))
    path = tmp_path / "opencode-run.jsonl"
    path.write_text("\n".join(lines) + "\n")
    log = load_foreign(path, "opencode-json").log
    assert (log.stop, len(log.steps)) == (stop, 3)
