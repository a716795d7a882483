"""Layouts of chat messages and ATIF steps read by their class, not by one file: a bare list of chat
messages from a tool-calling loop, a harness's own completion tool, the usual argument keys of a
shell command, a sub-agent's result as a list of text parts, a terminal transcript of `human` and
`assistant` turns, and ATIF-v1.5 results that name no call (Terminus-2's terminal screen)."""

import json
from pathlib import Path

import pytest

from impasse.analysis.formats.common import claim_action, command_of, text_of
from impasse.analysis.importers import detect, load_foreign
from impasse.vocabulary import Tool


def write(tmp_path: Path, name: str, data) -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(data))
    return path


def call(call_id: str, name: str, args: dict) -> dict:
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": json.dumps(args)}}


def chat_list(outcome: str) -> list[dict]:
    return [
        {"role": "system", "content": "You run commands with execute_command."},
        {"role": "user", "content": "Upgrade the build."},
        {"role": "assistant", "content": "Build first.",
         "tool_calls": [call("c1", "execute_command", {"cmd": "make -C app"})]},
        {"role": "tool", "tool_call_id": "c1", "content": "rc=2\nmake: cc: No such file or directory"},
        {"role": "assistant", "content": "Stopping.",
         "tool_calls": [call("c2", "finish", {"outcome": outcome, "summary": "Build upgraded."})]},
        {"role": "tool", "tool_call_id": "c2", "content": "acknowledged"}]


def test_a_bare_list_of_chat_messages_is_a_chat_export(tmp_path):
    data = chat_list("PASS")
    assert detect(data) == "chat-export"
    trajectory = load_foreign(write(tmp_path, "loop.json", data))
    assert trajectory.source == "chat-export"
    assert [s.text for s in trajectory.steps] == ["Build first.", "Stopping."]
    assert [(a.tool, a.command) for a in trajectory.steps[0].actions] == [(Tool.BASH, "make -C app")]
    assert [(o.output.splitlines()[-1], o.exit_code) for o in trajectory.steps[0].observations] == [
        ("make: cc: No such file or directory", 2)]
    assert [(a.tool, a.message) for a in trajectory.steps[1].actions] == [(Tool.TASK_COMPLETE, "Build upgraded.")]
    assert trajectory.ending == "task_complete"


def test_a_finish_that_reports_failure_is_no_claim(tmp_path):
    trajectory = load_foreign(write(tmp_path, "loop.json", chat_list("FAIL")))
    assert [a.tool for a in trajectory.steps[1].actions] == ["other"]
    assert trajectory.ending == "unknown"


@pytest.mark.parametrize(("name", "args", "message"), [
    ("finish", {"summary": "all done"}, "all done"),
    ("submit", {}, ""),
    ("attempt_completion", {"result": "the app builds"}, "the app builds"),
    ("Complete_Task", {"summary": "ok", "status": "success"}, "ok")])
def test_completion_tools_are_claims(name, args, message):
    action = claim_action(name, args)
    assert (action.tool, action.message) == (Tool.TASK_COMPLETE, message)


@pytest.mark.parametrize(("name", "args"), [
    ("finish", {"outcome": "FAIL", "summary": "could not"}), ("complete_task", {"status": "failed"}),
    ("finish_line", {"summary": "x"}), ("bash", {"command": "ls"})])
def test_other_calls_are_no_claims(name, args):
    assert claim_action(name, args) is None


@pytest.mark.parametrize(("args", "command"), [
    ({"command": "ls"}, "ls"), ({"cmd": "ls -a"}, "ls -a"), ({"script": "make"}, "make"),
    ({"keystrokes": "cd /tmp\n", "duration": 0.1}, "cd /tmp\n"), ({"input": "pwd"}, "pwd"),
    ({"command": ["bash", "-lc", "echo hi"]}, "echo hi"), ({"path": "x"}, "")])
def test_a_shell_command_under_its_usual_keys(args, command):
    assert command_of(args) == command


def test_mini_swe_agent_lists_stay_mini_and_read_cmd(tmp_path):
    """A bare list whose one tool is `bash` is mini-swe-agent's; its call's `cmd` is the command too."""
    data = [{"role": "user", "content": "task"},
            {"role": "assistant", "content": "look", "tool_calls": [call("a", "bash", {"cmd": "ls src"})]},
            {"role": "tool", "tool_call_id": "a",
             "content": "<returncode>0</returncode>\n<output>\nmain.py\n</output>"}]
    assert detect(data) == "mini-swe-agent"
    trajectory = load_foreign(write(tmp_path, "run.traj.json", data))
    assert [(a.tool, a.command) for a in trajectory.steps[0].actions] == [(Tool.BASH, "ls src")]
    assert [(o.output, o.exit_code) for o in trajectory.steps[0].observations] == [("main.py\n", 0)]


def test_a_sub_agents_result_is_its_parts_text():
    content = [{"type": "tool_output", "text": [{"type": "text", "text": "Found 3 files."},
                                                {"type": "text", "text": "All read."}]}]
    assert text_of(content) == "Found 3 files.\nAll read."
    assert text_of([{"type": "text", "text": "a"}, "b"]) == "a\nb"


def test_a_sub_agents_result_in_a_chat_export(tmp_path):
    data = {"meta": {"model": "m"}, "messages": [
        {"role": "user", "content": "explore"},
        {"role": "assistant", "content": None, "tool_calls": [call("t1", "Task", {"prompt": "map the repo"})]},
        {"role": "tool", "tool_call_id": "t1", "content": [{"type": "tool_output", "text": [
            {"type": "text", "text": "Report line one."}, {"type": "text", "text": "Report line two."}]}]}]}
    trajectory = load_foreign(write(tmp_path, "export.json", data))
    assert [o.output for o in trajectory.steps[0].observations] == ["Report line one.\nReport line two."]


TRANSCRIPT = {"session_info": {"session_id": "s-1", "format_version": "1.0"}, "messages": [
    {"role": "human", "content": "build the service", "timestamp": "2026-01-01T00:00:00"},
    {"role": "assistant", "content": "Reading the docs.\nRead 1 file (ctrl+o to expand)", "timestamp": "t"},
    {"role": "assistant", "content": "Bash(npm test)\n  ⎿  Error: Cannot find module 'jest'", "timestamp": "t"},
    {"role": "human", "content": "continue", "timestamp": "t"},
    {"role": "assistant", "content": "Done.", "timestamp": "t"}]}


def test_a_terminal_transcript_of_human_turns_is_no_mini_swe_agent_run(tmp_path):
    assert detect(TRANSCRIPT) == "chat-export"
    trajectory = load_foreign(write(tmp_path, "transcript.json", TRANSCRIPT))
    assert trajectory.source == "chat-export"
    assert [s.text.splitlines()[0] for s in trajectory.steps] == ["Reading the docs.", "Done."]
    assert all(not s.actions and not s.observations for s in trajectory.steps)


def test_a_mini_swe_agent_run_with_user_observations_stays_mini():
    data = {"messages": [{"role": "user", "content": "task"}, {"role": "assistant", "content": "```bash\nls\n```"},
                         {"role": "user", "content": "<returncode>0</returncode>\n<output>\n</output>"}]}
    assert detect(data) == "mini-swe-agent"


TERMINUS = {"schema_version": "ATIF-v1.5", "session_id": "s-2", "agent": {"name": "terminus-2", "model_name": "m"},
            "steps": [
                {"step_id": 1, "source": "user", "message": "Set up the environment."},
                {"step_id": 2, "source": "agent", "message": "Analysis: start.", "tool_calls": [
                    {"tool_call_id": "call_0_1", "function_name": "bash_command",
                     "arguments": {"keystrokes": "cd /srv\n", "duration": 0.1}},
                    {"tool_call_id": "call_0_2", "function_name": "bash_command",
                     "arguments": {"keystrokes": "python3 -m venv env\n", "duration": 1.0}}],
                 "observation": {"results": [{"content": "New Terminal Output:\n$ python3 -m venv env\n"
                                                         "The virtual environment was not created successfully "
                                                         "because ensurepip is not available."}]}},
                {"step_id": 3, "source": "agent", "message": "Analysis: check.", "tool_calls": [
                    {"tool_call_id": "call_1_1", "function_name": "bash_command",
                     "arguments": {"keystrokes": "ls\n"}}]},
                {"step_id": 4, "source": "system", "message": "output",
                 "observation": {"results": [{"content": "env\n"}]}},
                {"step_id": 5, "source": "agent", "message": "Analysis: done.", "tool_calls": [
                    {"tool_call_id": "call_2_1", "function_name": "bash_command", "arguments": {"keystrokes": "pwd\n"}},
                    {"tool_call_id": "call_2_2", "function_name": "mark_task_complete", "arguments": {}}],
                 "observation": {"results": [{"source_call_id": "call_2_1", "content": "/srv\n"},
                                             {"content": "Task marked complete."}]}}]}


def test_atif_results_that_name_no_call(tmp_path):
    trajectory = load_foreign(write(tmp_path, "trajectory.json", TERMINUS))
    assert trajectory.source == "atif" and len(trajectory.steps) == 3
    first, second, third = trajectory.steps
    assert [(a.tool, a.command) for a in first.actions] == [(Tool.BASH, "cd /srv\n"),
                                                            (Tool.BASH, "python3 -m venv env\n")]
    assert [o.output.splitlines()[-1] for o in first.observations] == [
        "The virtual environment was not created successfully because ensurepip is not available."]
    assert [o.kind for o in first.observations] == ["command"]
    assert [o.output for o in second.observations] == ["env\n"]  # a later non-agent entry's results
    assert [o.output for o in third.observations] == ["/srv\n", "Task marked complete."]


def test_a_file_that_begins_with_a_byte_order_mark_is_read(tmp_path):
    """Windows tools write a BOM before the JSON; the session is read all the same."""
    path = tmp_path / "session.json"
    path.write_bytes(b"\xef\xbb\xbf" + json.dumps(chat_list("PASS")).encode())
    assert load_foreign(path).length == load_foreign(write(tmp_path, "plain.json", chat_list("PASS"))).length > 0
