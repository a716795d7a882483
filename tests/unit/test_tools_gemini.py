"""Gemini CLI's and Qwen Code's tools, and back: a policy's calls in their names, their calls in
impasse's, and their results (as the real programs wrote them to the model) as output and exit code."""

from __future__ import annotations

import pytest

from impasse.agents.tool_names import AgentCall, Offered, to_agent, to_impasse, tools_of
from impasse.agents.tool_results import gemini_output
from impasse.models.turns import ToolCall
from impasse.vocabulary import Tool

GEMINI, QWEN = "gemini-cli", "qwen-code"

# As Qwen Code 0.24.4 and Gemini CLI 0.61.0 sent them back to a model (their requests, captured)
QWEN_OK = ("Command: echo probe-ran > probe.txt; ls\nDirectory: (root)\nOutput: (empty)\nError: (none)\n"
           "Exit Code: 0\nSignal: (none)\nProcess Group PGID: (none)")
QWEN_FAILED = ("Command: jq . x\nDirectory: (root)\nOutput: bash: line 1: jq: command not found\nError: (none)\n"
               "Exit Code: 127\nSignal: (none)\nProcess Group PGID: 41")
GEMINI_OK = "<untrusted_context>\nOutput: probe.txt\nProcess Group PGID: 32313\n</untrusted_context>"
GEMINI_FAILED = "<untrusted_context>\nOutput: out\nerr\nExit Code: 3\nProcess Group PGID: 9\n</untrusted_context>"
GEMINI_MCP = "<untrusted_context>\nFixed: invoicekit is yours to write now.\n</untrusted_context>"


@pytest.mark.parametrize(("text", "is_error", "expected"), [
    (QWEN_OK, None, ("", 0)),
    (QWEN_FAILED, None, ("bash: line 1: jq: command not found\n", 127)),
    (GEMINI_OK, None, ("probe.txt\n", 0)),  # Gemini says no code for 0
    (GEMINI_FAILED, None, ("out\nerr\n", 3)),
    (GEMINI_MCP, None, ("Fixed: invoicekit is yours to write now.", None)),
    ("Successfully modified file: /workspace/a.py (1 replacements).", None, (
        "Successfully modified file: /workspace/a.py (1 replacements).", 0)),
    ("The file: /workspace/a.py has been updated. Showing lines 1-3 of 9 from the edited file:\n", None, (
        "The file: /workspace/a.py has been updated. Showing lines 1-3 of 9 from the edited file:\n", 0)),
    ("Error: EACCES: permission denied, open '/workspace/a.py'", True, (
        "Error: EACCES: permission denied, open '/workspace/a.py'", 1)),
])
def test_their_results_read_as_output_and_exit_code(text, is_error, expected):
    assert gemini_output(text, is_error) == expected


@pytest.mark.parametrize(("agent", "edit", "prefix"), [(GEMINI, "replace", "mcp_impasse_"),
                                                       (QWEN, "edit", "mcp__impasse__")])
def test_a_policys_calls_in_their_names_and_back(agent, edit, prefix):
    bash = ToolCall("c1", Tool.BASH, {"command": "pytest -q"}, "")
    change = ToolCall("c2", Tool.EDIT_FILE, {"path": "a.py", "old_str": "x", "new_str": "y"}, "")
    create = ToolCall("c3", Tool.EDIT_FILE, {"path": "b.py", "old_str": "", "new_str": "z"}, "")
    ask = ToolCall("c4", Tool.ESCALATE_TO_HUMAN, {"reason": "root owns a.py"}, "")
    sent = [(c.name, c.arguments) for call in (bash, change, create, ask)
            for c in to_agent(call, tools_of(agent), Offered(), "/workspace") if not c.hidden]
    assert [name for name, _ in sent] == ["run_shell_command", edit, "write_file", f"{prefix}escalate_to_human"]
    assert sent[1][1]["file_path"] == "/workspace/a.py" and ("instruction" in sent[1][1]) == (agent == GEMINI)
    back = [to_impasse(AgentCall(f"w{i}", name, args)) for i, (name, args) in enumerate(sent)]
    assert [(c.name, c.arguments) for c in back] == [
        (Tool.BASH, {"command": "pytest -q"}),
        (Tool.EDIT_FILE, {"path": "/workspace/a.py", "old_str": "x", "new_str": "y"}),
        (Tool.EDIT_FILE, {"path": "/workspace/b.py", "old_str": "", "new_str": "z"}),
        (Tool.ESCALATE_TO_HUMAN, {"reason": "root owns a.py"})]
