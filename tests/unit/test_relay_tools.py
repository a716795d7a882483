"""impasse's tools in each agent's names and back: tool results in the exact text the real agents
send (as captured from Claude Code 2.1.332 and Codex 0.171.0), Codex's patch envelope, an edit a
patch cannot say, and a command Codex leaves running, polled by the relay in the same step."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from impasse.agents.relay import Relay
from impasse.agents.tool_names import AgentCall, Offered, ToolResult, result_of, to_agent, to_impasse, tools_of
from impasse.agents.tools_codex import codex_patch
from impasse.models.scripted import Edit, Playbook, ScriptedPolicy
from impasse.models.turns import ToolCall
from impasse.vocabulary import Ending
from tests.unit.relay_clients import CODEX_TOOLS, Codex, apply_patch
from tests.unit.test_relay_episodes import BUGGY, FIXED, PASSES, recorded, workspace  # noqa: F401

CLAUDE_CODE, CODEX = tools_of("claude-code"), tools_of("codex")
EDIT_SCRIPT = str(Path(__file__).resolve().parents[2] / "harness" / "edit_file.py")
CLAUDE_REMINDER = "\n\n<system-reminder>\n<total_tokens>14999994 tokens left</total_tokens>\n</system-reminder>"


@pytest.mark.parametrize(("result", "expected"), [
    (ToolResult("t", "Exit code 3\nhi\n" + CLAUDE_REMINDER, True), ("hi\n", 3)),
    (ToolResult("t", "fine\n" + CLAUDE_REMINDER, False), ("fine\n", 0)),
    (ToolResult("t", "(Bash completed with no output)", False), ("", 0)),
    (ToolResult("t", "<tool_use_error>String to replace not found in file.</tool_use_error>", True),
     ("<tool_use_error>String to replace not found in file.</tool_use_error>\n", 1)),
])
def test_claude_code_results_read_as_output_and_exit_code(result, expected):
    assert result_of(CLAUDE_CODE, result) == expected


@pytest.mark.parametrize(("text", "expected"), [
    ("Chunk ID: c7b0dd\nWall time: 0.0000 seconds\nProcess exited with code 3\nOriginal token count: 1\nOutput:\nhi\n",
     ("hi\n", 3)),
    ("Exit code: 0\nWall time: 0 seconds\nOutput:\nSuccess. Updated the following files:\nM a.txt\n",
     ("Success. Updated the following files:\nM a.txt\n", 0)),
    ("apply_patch verification failed: Failed to find expected lines in /w/a.txt:\nnothere",
     ("apply_patch verification failed: Failed to find expected lines in /w/a.txt:\nnothere", None)),
    ("Wall time: 0.0027 seconds\nOutput:\nEscalation recorded.", ("Escalation recorded.", None)),
])
def test_codex_results_read_as_output_and_exit_code(text, expected):
    assert result_of(CODEX, ToolResult("c", text)) == expected


def test_an_edit_becomes_a_patch_codex_applies_and_reads_back_as_the_edit(tmp_path):
    (tmp_path / "m.py").write_text("x = 1\n\ndef f():\n    a = 1\n    return a\n")
    patch = codex_patch("m.py", "def f():\n    a = 1\n    return a\n", "def f():\n    a = 2\n    return a\n")
    assert apply_patch(tmp_path, patch).startswith("Exit code: 0")
    assert (tmp_path / "m.py").read_text() == "x = 1\n\ndef f():\n    a = 2\n    return a\n"
    created = codex_patch("new.txt", "", "one\ntwo\n")
    assert apply_patch(tmp_path, created).startswith("Exit code: 0") and (tmp_path / "new.txt").read_text() == \
        "one\ntwo\n"
    back = to_impasse(AgentCall("c", "apply_patch", text=patch))
    assert back.name == "edit_file" and back.arguments["path"] == "m.py" and back.raw_arguments == patch


def test_each_of_impasses_tools_has_its_name_in_each_agent():
    offered = Offered({"apply_patch", "exec_command"}, {"apply_patch"})
    calls = [ToolCall("1", "bash", {"command": "ls"}), ToolCall("2", "edit_file", {"path": "a", "old_str": "",
                                                                                    "new_str": "x\n"}),
             ToolCall("3", "escalate_to_human", {"reason": "r"}), ToolCall("4", "task_complete", {"summary": "s"})]
    claude = [(c.name, c.arguments) for call in calls for c in to_agent(call, CLAUDE_CODE, offered, "/workspace")]
    assert claude == [("Bash", {"command": "ls", "timeout": 120000}),
                      ("Write", {"file_path": "/workspace/a", "content": "x\n"}),
                      ("mcp__impasse__escalate_to_human", {"reason": "r"}), ("mcp__impasse__task_complete",
                                                                             {"summary": "s"})]
    codex = [(c.name, c.namespace, c.freeform) for call in calls for c in to_agent(call, CODEX, offered, "/w")]
    assert codex == [("exec_command", None, False), ("apply_patch", None, True),
                     ("escalate_to_human", "mcp__impasse", False), ("task_complete", "mcp__impasse", False)]
    as_function = to_agent(calls[1], CODEX, Offered({"apply_patch"}), "/w")[0]
    assert as_function.arguments == {"input": "*** Begin Patch\n*** Add File: a\n+x\n*** End Patch\n"}
    assert [to_impasse(c).name for call in calls for c in to_agent(call, CLAUDE_CODE, offered, "/w")] == \
        ["bash", "edit_file", "escalate_to_human", "task_complete"]


@pytest.mark.parametrize(("edit", "tools"), [
    pytest.param(Edit("calc.py", "a - b", "a + b"), CODEX_TOOLS, id="inside-a-line"),
    pytest.param(Edit("calc.py", BUGGY, FIXED), [t for t in CODEX_TOOLS if t.get("name") != "apply_patch"],
                 id="no-apply-patch-offered")])
def test_an_edit_no_patch_can_say_runs_as_impasses_own_edit_script_on_codex(
        workspace, run_dir, edit, tools):  # noqa: F811
    """Codex offers no apply_patch for a model it has no metadata for (`model = "impasse"`)."""
    oracle = ScriptedPolicy("oracle", Playbook((edit,), PASSES, False), seed=0)
    with Relay(oracle, run_dir, agent="codex", workdir=str(workspace), edit_script=EDIT_SCRIPT) as relay:
        side = Codex(relay.socket_path, workspace, tools=tools)
        side.run()
    assert (workspace / "calc.py").read_text().endswith(FIXED) and relay.ending.kind == Ending.TASK_COMPLETE
    sent = [json.loads(item["arguments"])["cmd"] for items in side.replies for item in items
            if item.get("name") == "exec_command" and EDIT_SCRIPT in item["arguments"]]
    assert len(sent) == 1 and sent[0].startswith(f"python3 {EDIT_SCRIPT} ")
    edit_step = recorded(run_dir)[2]
    assert edit_step.tool_calls[0].name == "edit_file"
    observed = edit_step.observations[0]
    assert observed.exit_code == 0 and observed.output.startswith("edited calc.py at line ")  # edit_file's words


def test_a_command_codex_leaves_running_is_polled_within_its_step(workspace, run_dir):  # noqa: F811
    slow = ScriptedPolicy("oracle", Playbook((Edit("calc.py", BUGGY, FIXED),), f"sleep 0.4; echo ran; {PASSES}",
                                             False), seed=0)
    with Relay(slow, run_dir, agent="codex", workdir=str(workspace)) as relay:
        side = Codex(relay.socket_path, workspace, wait_scale=0.001)  # 30 s is 30 ms, a poll's 300 s 300 ms
        side.run()
    kinds = [json.loads(line)["kind"] for line in (run_dir.path / "relay.jsonl").read_text().splitlines()]
    assert kinds.count("poll") >= 1 and kinds.count("step") == 5
    assert relay.ending.kind == Ending.TASK_COMPLETE
    test_run = recorded(run_dir)[3]
    assert test_run.tool_calls[0].name == "bash" and test_run.observations[0].exit_code == 0
    assert test_run.observations[0].output == "ran\n"
    polls = [item for items in side.replies for item in items if item.get("name") == "write_stdin"]
    assert polls and {json.loads(p["arguments"])["session_id"] for p in polls} <= set(side.sessions)
    assert all(p["call_id"].split("_poll")[0] in {"call_1", "call_2", "call_3", "call_4"} for p in polls)


@pytest.mark.parametrize(("offered", "name", "arguments"), [
    ({"exec_command", "shell"}, "exec_command", {"cmd": "ls -la", "yield_time_ms": 30000}),
    ({"shell_command"}, "shell_command", {"command": "ls -la", "timeout_ms": 120000}),
    ({"shell"}, "shell", {"command": ["bash", "-lc", "ls -la"], "timeout_ms": 120000}),
])
def test_codexs_shell_is_the_one_the_request_offers(offered, name, arguments):
    call = to_agent(ToolCall("1", "bash", {"command": "ls -la"}), CODEX, Offered(offered), "/w")[0]
    assert (call.name, call.arguments) == (name, arguments)
    assert to_impasse(call).arguments == {"command": "ls -la"}
