"""An agent that stops itself is the agent's ending, in its own words (dialects/own_stop.py,
agents/external.agents_own_end): its loop detector, its turn cap, its own error, in each family's
event shape; a failed connection to its model or a silent exit stays the harness's, with words."""

from __future__ import annotations

import json

import pytest

from impasse.agents.external import agents_own_end
from impasse.dialects.own_stop import own_stop
from impasse.episode.rundir import RunDir
from impasse.vocabulary import Ending

LOOP = ("A potential loop was detected. This can happen due to repetitive tool calls or other model "
        "behavior. The request has been halted.")

STOPS = {
    "qwen-loop": ({"type": "result", "subtype": "error_during_execution", "is_error": True, "num_turns": 68,
                   "error": {"message": LOOP}}, LOOP, "result/error_during_execution"),
    "claude-turns": ({"type": "result", "subtype": "error_max_turns", "is_error": True, "num_turns": 40},
                     "error max turns", "result/error_max_turns"),
    "gemini-status": ({"type": "result", "status": "error",
                       "error": {"type": "FatalTurnLimitedError", "message": "Reached max session turns"}},
                      "Reached max session turns", "result/error"),
    "codex-turn-failed": ({"type": "turn.failed", "error": {"message": "exceeded retry limit"}},
                          "exceeded retry limit", "turn.failed"),
    "opencode-error": ({"type": "error", "error": {"name": "UnknownError", "data": {"message": "tool crashed"}}},
                       "tool crashed", "error"),
}


def stream(tmp_path, *records, garbage: str = "") -> RunDir:
    kept = tmp_path / "agent"
    kept.mkdir(parents=True, exist_ok=True)
    lines = [json.dumps(r) for r in records]
    (kept / "transcript.jsonl").write_text("\n".join(lines) + garbage + "\n")
    return RunDir(tmp_path)


@pytest.mark.parametrize("name", list(STOPS))
def test_each_familys_error_record_is_read_with_its_words(tmp_path, name):
    record, words, kind = STOPS[name]
    run_dir = stream(tmp_path, {"type": "assistant", "message": {"content": []}}, record)
    stop = own_stop(run_dir.path / "agent" / "transcript.jsonl")
    assert (stop.words, stop.kind) == (words, kind)


def test_qwen_codes_loop_detection_exit_1_is_the_agents_stop_with_its_words(tmp_path):
    run_dir = stream(tmp_path, STOPS["qwen-loop"][0])
    end = agents_own_end(run_dir, 1, 68)
    assert end.kind == Ending.STOPPED and end.step == 68
    assert "A potential loop was detected" in end.message


def test_a_last_record_that_is_no_error_is_no_stop(tmp_path):
    """An error the agent recovered from, then a success: the success is how it ended."""
    run_dir = stream(tmp_path, {"type": "error", "message": "retrying"},
                     {"type": "result", "subtype": "success", "is_error": False, "result": "done"})
    assert own_stop(run_dir.path / "agent" / "transcript.jsonl") is None
    end = agents_own_end(run_dir, 0, 5)
    assert end.kind == Ending.STOPPED and "stopped by itself" in end.message


def test_a_failed_connection_to_the_model_is_the_harnesss_with_the_agents_words(tmp_path):
    run_dir = stream(tmp_path, {"type": "result", "is_error": True, "subtype": "error_during_execution",
                                "error": {"message": "API Error: Connection error. (ECONNREFUSED)"}})
    end = agents_own_end(run_dir, 1, 3)
    assert end.kind == Ending.HARNESS_ERROR and end.message.endswith("API Error: Connection error. (ECONNREFUSED)")


def test_an_exit_with_no_word_anywhere_still_says_so(tmp_path):
    """Never `the agent exited 1:` and nothing after the colon."""
    (tmp_path / "agent").mkdir()
    end = agents_own_end(RunDir(tmp_path), 1, 2)
    assert end.kind == Ending.HARNESS_ERROR
    assert end.message == "the agent exited 1: nothing on its stderr, no error in its event stream"


def test_stderr_is_the_cause_when_the_stream_has_no_error(tmp_path):
    run_dir = stream(tmp_path, {"type": "assistant"})
    (tmp_path / "agent" / "stderr.txt").write_text("node: cannot open shared object file\n")
    end = agents_own_end(run_dir, 127, 0)
    assert end.kind == Ending.HARNESS_ERROR and end.message.endswith("cannot open shared object file")


def test_a_torn_last_line_and_plain_text_are_passed_over(tmp_path):
    run_dir = stream(tmp_path, STOPS["codex-turn-failed"][0], garbage='\nnot json\n{"type": "resu')
    assert own_stop(run_dir.path / "agent" / "transcript.jsonl").words == "exceeded retry limit"


def test_no_stream_is_no_stop(tmp_path):
    assert own_stop(tmp_path / "absent.jsonl") is None


def test_a_foreign_stream_json_that_ends_on_the_agents_own_error_reads_as_halted(tmp_path):
    """The annotator reads the same record in a session someone else ran (Claude Code's stream-json
    shape, which Qwen Code prints): the agent halted itself, with its words as the line read."""
    from impasse.analysis.importers import load_foreign
    from impasse.analysis.verdicts import GAVE_UP, verdict_of

    records = [
        {"type": "system", "subtype": "init", "session_id": "s1"},
        {"type": "assistant", "session_id": "s1", "message": {"id": "m1", "role": "assistant", "content": [
            {"type": "tool_use", "id": "t1", "name": "run_shell_command", "input": {"command": "pytest -q"}}]}},
        {"type": "user", "session_id": "s1", "message": {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "t1", "content": "OSError: [Errno 28] No space left on device"}]}},
        STOPS["qwen-loop"][0],
    ]
    path = tmp_path / "session.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in records) + "\n")
    verdict = verdict_of(load_foreign(path))
    assert verdict.kind == GAVE_UP and "halted itself" in verdict.how
    assert verdict.line.startswith("A potential loop was detected")
