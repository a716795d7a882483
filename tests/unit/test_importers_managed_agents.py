"""Claude Managed Agents' session events read into steps, bare or as a recorder wraps each one: a run
of the agent's events is a step, each tool result answers its tool use; a failed result failed with no
number and a bash command that did not fail exited 0; the user's events end a run. And a `.jsonl` file
that holds one whole session object on its one line is read as that document."""

from __future__ import annotations

import json

import pytest

from impasse.analysis.importers import load_foreign
from impasse.analysis.normal_form import COMMAND, READ, WRITE
from impasse.analysis.verdicts import CLAIMED, verdict_of
from impasse.dialects.claude_code import FAILED_STATUS_UNKNOWN
from impasse.vocabulary import Tool


def event(kind: str, n: int, **fields) -> dict:
    return {"type": kind, "id": f"sevt_{n:02d}", "processed_at": f"2026-08-16T09:36:{n:02d}Z", **fields}


def text(words: str) -> list[dict]:
    return [{"type": "text", "text": words}]


EVENTS = [
    event("session.status_running", 0),
    event("user.define_outcome", 1, description="Reproduce the paper's figure 3"),
    event("span.model_request_start", 2),
    event("agent.message", 3, content=text("I'll fetch the paper first.")),
    event("agent.tool_use", 4, name="web_fetch", input={"url": "https://doi.org/10.1145/1"}),
    event("agent.tool_use", 5, name="bash", input={"command": "rsync -a data/ out/"}),
    event("span.model_request_end", 6, is_error=False),
    event("agent.tool_result", 7, tool_use_id="sevt_04", is_error=True,
          content=text("Web fetch error: url_not_accessible")),
    event("agent.tool_result", 8, tool_use_id="sevt_05", is_error=True,
          content=text("-bash: rsync: command not found\n")),
    event("agent.thinking", 9),
    event("agent.tool_use", 10, name="write", input={"file_path": "/workspace/fig3.py", "content": "print(3)\n"}),
    event("agent.tool_result", 11, tool_use_id="sevt_10", is_error=False, content=text("File written")),
    event("agent.tool_use", 12, name="bash", input={"command": "python fig3.py"}),
    event("agent.tool_result", 13, tool_use_id="sevt_12", is_error=False, content=text("3\n")),
    event("agent.message", 14, content=text("Done: the script for figure 3 prints the published value.")),
    event("session.status_idle", 15, stop_reason={"type": "end_turn"}),
]


def recorded(events: list[dict]) -> list[dict]:
    """Each event as a recorder keeps it: a line of its own around the event."""
    role = {"agent": "agent", "user": "user"}
    return [{"role": role.get(e["type"].split(".")[0], "system"), "kind": e["type"].split(".", 1)[1],
             "time": e["processed_at"], "raw": e} for e in events]


@pytest.mark.parametrize("lines", [EVENTS, recorded(EVENTS)], ids=["bare", "recorded"])
def test_managed_agents_events_are_their_steps(tmp_path, lines):
    path = tmp_path / "transcript.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    trajectory = load_foreign(path)
    assert trajectory.source == "managed-agents"
    fetch, write, run, last = trajectory.steps
    assert fetch.text == "I'll fetch the paper first." and [a.kind for a in fetch.actions] == [READ, COMMAND]
    fetched, synced = fetch.observations
    assert (fetched.output, fetched.exit_code) == ("Web fetch error: url_not_accessible", FAILED_STATUS_UNKNOWN)
    assert (synced.exit_code, synced.kind) == (FAILED_STATUS_UNKNOWN, COMMAND)
    assert "rsync: command not found" in synced.output
    assert write.actions[0].tool == Tool.EDIT_FILE and write.actions[0].kind == WRITE
    assert [(o.exit_code, o.output) for o in run.observations] == [(0, "3\n")]
    assert last.actions == [] and verdict_of(trajectory).kind == CLAIMED


def test_a_jsonl_file_of_one_whole_session_object_is_read_as_that_document(tmp_path):
    session = {"id": "s1", "model": "qwen/qwen3.6-plus", "messages": [
        {"role": "user", "content": "List the files"},
        {"role": "assistant", "content": "", "tool_calls": [{"id": "c1", "type": "function", "function": {
            "name": "terminal", "arguments": json.dumps({"command": "ls"})}}]},
        {"role": "tool", "tool_call_id": "c1", "content": "README.md\n"},
        {"role": "assistant", "content": "There is one file, README.md."}]}
    path = tmp_path / "session.jsonl"
    path.write_text(json.dumps(session) + "\n")
    trajectory = load_foreign(path)
    listed, answered = trajectory.steps
    assert listed.actions[0].command == "ls" and listed.observations[0].output == "README.md\n"
    assert answered.text == "There is one file, README.md."
