"""`codex exec --json` stdout read as a trajectory: steps rebuilt from the items (a message opens
one, the calls started together are one step), commands unwrapped from Codex's shell, the MCP
verdict as the ending; and detected as its own format."""

from __future__ import annotations

import json

from impasse.analysis.importers import load_foreign
from impasse.vocabulary import Ending, Tool


def command(item_id: str, line: str, output: str, code: int) -> list[dict]:
    item = {"id": item_id, "type": "command_execution", "command": f"/bin/bash -lc {json.dumps(line)}"}
    return [{"type": "item.started", "item": {**item, "aggregated_output": "", "exit_code": None,
                                                "status": "in_progress"}},
            {"type": "item.completed", "item": {**item, "aggregated_output": output, "exit_code": code,
                                                  "status": "completed" if code == 0 else "failed"}}]


def message(item_id: str, text: str) -> dict:
    return {"type": "item.completed", "item": {"id": item_id, "type": "agent_message", "text": text}}


def test_exec_json_is_read_step_by_step(tmp_path):
    parallel_a = {"id": "i5", "type": "command_execution", "command": "/bin/bash -lc 'ls'"}
    parallel_b = {"id": "i6", "type": "command_execution", "command": "/bin/bash -lc pwd"}
    escalation = {"id": "i8", "type": "mcp_tool_call", "server": "impasse", "tool": "escalate_to_human",
                  "arguments": {"reason": "root owns the files"}, "error": None, "status": "completed",
                  "result": {"content": [{"type": "text", "text": "Escalation recorded."}]}}
    records = [
        {"type": "thread.started", "thread_id": "th-1"},
        {"type": "item.completed", "item": {"id": "i0", "type": "error", "message": "Model metadata not found"}},
        {"type": "turn.started"},
        message("i1", "Looking."), *command("i2", "ls tests", "test_a.py\n", 0),
        *command("i3", "touch x", "touch: cannot touch 'x': Permission denied\n", 1),  # a turn with no message
        {"type": "item.started", "item": parallel_a}, {"type": "item.started", "item": parallel_b},
        {"type": "item.completed", "item": {**parallel_a, "aggregated_output": "a\n", "exit_code": 0}},
        {"type": "item.completed", "item": {**parallel_b, "aggregated_output": "/w\n", "exit_code": 0}},
        {"type": "item.started", "item": {**escalation, "status": "in_progress", "result": None}},
        {"type": "item.completed", "item": escalation},
        message("i9", "Stopping."), {"type": "turn.completed", "usage": {}}]
    path = tmp_path / "transcript.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    trajectory = load_foreign(path)  # detected
    assert trajectory.run_id == "th-1" and trajectory.ending == Ending.ESCALATE_TO_HUMAN
    assert [[a.command or a.message for a in s.actions] for s in trajectory.steps] == [
        ["ls tests"], ["touch x"], ["ls", "pwd"], ["root owns the files"], []]
    assert [[o.exit_code for o in s.observations] for s in trajectory.steps] == [[0], [1], [0, 0], [None], []]
    assert trajectory.steps[1].observations[0].output.endswith("Permission denied\n")
    assert trajectory.steps[3].actions[0].tool == Tool.ESCALATE_TO_HUMAN
    assert trajectory.steps[3].observations[0].output == "Escalation recorded."
    assert trajectory.steps[4].text == "Stopping."


def test_a_failed_file_change_is_a_failed_edit(tmp_path):
    change = {"id": "i1", "type": "file_change", "changes": [{"path": "/w/a.py", "kind": "update"}],
              "status": "failed"}
    path = tmp_path / "t.jsonl"
    path.write_text(json.dumps({"type": "thread.started", "thread_id": "t"}) + "\n"
                    + json.dumps({"type": "item.completed", "item": change}) + "\n")
    (step,) = load_foreign(path, "codex-exec").steps
    assert [(a.tool, a.path) for a in step.actions] == [(Tool.EDIT_FILE, "/w/a.py")]
    assert step.observations[0].exit_code == 1
