"""Claude Code and Codex step boundaries, rule by rule (../shared/real-trajectories/LABELING.md §5–6),
on small sessions written to the formats' documented keys."""

import json
from pathlib import Path

from impasse.analysis.importers import load_foreign


def write_lines(path: Path, records: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


def entry(kind: str, content, **extra) -> dict:
    return {"type": kind, "sessionId": "s", "message": {"role": kind, "model": "claude-x", "content": content},
            **extra}


def call(call_id: str, command: str) -> dict:
    return {"type": "tool_use", "id": call_id, "name": "Bash", "input": {"command": command}}


def result(call_id: str, text: str) -> dict:
    return {"type": "tool_result", "tool_use_id": call_id, "content": text}


def outputs(trajectory) -> list[list[str]]:
    return [[o.output for o in s.observations] for s in trajectory.steps]


def test_claude_code_one_reply_in_many_entries_is_one_step_and_a_prompt_ends_the_run(tmp_path):
    t = load_foreign(write_lines(tmp_path / "s.jsonl", [
        {"type": "queue-operation", "operation": "enqueue"},
        entry("user", "fix the build"),
        entry("assistant", [{"type": "thinking", "thinking": "hm"}]),
        {"type": "attachment", "attachment": {}},  # bookkeeping between the entries of one reply
        entry("assistant", [{"type": "text", "text": "Building."}]),
        entry("assistant", [call("a", "make")]),
        entry("user", [result("a", "make: ok")]),
        entry("user", [{"type": "text", "text": "<command-name>/clear</command-name>"}], isMeta=True),  # skipped
        entry("assistant", [call("b", "make test")]),
        entry("user", [result("b", "2 passed")]),
        entry("user", "now deploy"),  # a plain human prompt: no observation, the run ends
        entry("assistant", [{"type": "text", "text": "Done."}])]))
    assert [s.text for s in t.steps] == ["Building.", "", "Done."]
    assert outputs(t) == [["make: ok"], ["2 passed"], []]


def test_claude_code_sidechains_are_skipped_in_a_main_session_and_read_alone_in_their_own(tmp_path):
    main = [entry("user", "go"), entry("assistant", [call("a", "ls")]),
            entry("assistant", [call("x", "id")], isSidechain=True),
            entry("user", [result("x", "uid=0")], isSidechain=True),
            entry("user", [result("a", "a.py")])]
    t = load_foreign(write_lines(tmp_path / "main.jsonl", main))
    assert outputs(t) == [["a.py"]] and t.steps[0].actions[0].command == "ls"
    agent = [{**e, "isSidechain": True, "agentId": "ag1"} for e in main]
    sub = load_foreign(write_lines(tmp_path / "agent-ag1.jsonl", agent))
    assert outputs(sub) == [["uid=0", "a.py"]] and sub.run_id == "ag1"


def item(payload: dict) -> dict:
    return {"type": "response_item", "payload": payload}


def rollout(path: Path, *items: dict) -> Path:
    return write_lines(path, [{"type": "session_meta", "payload": {"id": "r"}}, *items])


def shell_call(call_id: str, arguments: dict, output, name: str = "shell_command") -> tuple[dict, dict]:
    """A Codex function call and its output."""
    return (item({"type": "function_call", "name": name, "call_id": call_id, "arguments": json.dumps(arguments)}),
            item({"type": "function_call_output", "call_id": call_id, "output": output}))


def test_codex_a_run_of_model_items_is_one_step_outputs_joined_and_unwrapped(tmp_path):
    t = load_foreign(write_lines(tmp_path / "rollout-1.jsonl", [
        {"type": "session_meta", "payload": {"id": "r"}},
        item({"type": "message", "role": "user", "content": [{"type": "input_text", "text": "go"}]}),
        item({"type": "reasoning", "summary": []}),
        {"type": "event_msg", "payload": {"type": "agent_reasoning"}},  # a duplicate, not an item
        item({"type": "function_call", "name": "shell", "call_id": "1", "arguments": '{"command": ["ls"]}'}),
        item({"type": "function_call", "name": "shell", "call_id": "2", "arguments": '{"command": ["id"]}'}),
        item({"type": "function_call_output", "call_id": "2",
              "output": json.dumps({"output": "uid=1", "metadata": {"exit_code": 0}})}),
        item({"type": "function_call_output", "call_id": "1",
              "output": json.dumps({"output": "ls: cannot open directory '.': Permission denied",
                                    "metadata": {"exit_code": 2}})}),
        item({"type": "reasoning", "summary": []}),  # a reasoning item alone, then the human: a step
        item({"type": "message", "role": "user", "content": [{"type": "input_text", "text": "stop"}]}),
        item({"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "Stopped."}]})]))
    assert outputs(t) == [["uid=1", "ls: cannot open directory '.': Permission denied"], [], []]
    assert [o.exit_code for o in t.steps[0].observations] == [0, 2]
    assert [len(s.actions) for s in t.steps] == [2, 0, 0] and t.steps[2].text == "Stopped."


def test_codex_text_outputs_give_their_header_status(tmp_path):
    t = load_foreign(rollout(
        tmp_path / "rollout-2.jsonl",
        *shell_call("1", {"command": "x"}, "Exit code: 1\nWall time: 1 seconds\nOutput:\nfatal: not a git repository"),
        *shell_call("2", {"cmd": "y"}, "Chunk ID: a\nProcess exited with code 0\nOutput:\nExit code: 5",
                    name="exec_command"),
        *shell_call("3", {"command": "z"},
                    'execution error: Io(Custom { kind: Other, error: "windows sandbox: failed" })'),
        item({"type": "custom_tool_call", "name": "exec", "call_id": "4", "input": "await tools.exec_command()"}),
        item({"type": "custom_tool_call_output", "call_id": "4", "output": [
            {"type": "input_text", "text": "Script failed\nWall time 0.1 seconds\nOutput:\n"},
            {"type": "input_text", "text": "Script error: boom"}]})))
    assert [o.exit_code for s in t.steps for o in s.observations] == [1, 0, 1, 1]
    assert t.steps[3].actions[0].command == "await tools.exec_command()"


def test_a_code_mode_script_making_one_shell_call_is_that_command(tmp_path):
    script = ('const r = await tools.exec_command({"cmd":"rg -n \\"oauth|token\\" MEMORY.md","workdir":"/w",'
              '"yield_time_ms":10000});\ntext(r.output);\n')
    two = 'await tools.exec_command({"cmd":"ls"});\nawait tools.exec_command({"cmd":"pwd"});\n'
    t = load_foreign(rollout(
        tmp_path / "rollout-5.jsonl",
        item({"type": "custom_tool_call", "name": "exec", "call_id": "1", "input": script}),
        item({"type": "custom_tool_call_output", "call_id": "1", "output": "Script completed\nOutput:\n1:oauth"}),
        item({"type": "custom_tool_call", "name": "exec", "call_id": "2", "input": two})))
    assert [a.command for s in t.steps for a in s.actions] == ['rg -n "oauth|token" MEMORY.md', two]


def test_a_tool_timeout_is_recorded_as_one(tmp_path):
    codex = load_foreign(rollout(
        tmp_path / "rollout-3.jsonl",
        *shell_call("1", {"command": "x"},
                    "Exit code: 124\nWall time: 11 seconds\nOutput:\ncommand timed out after 10937 milliseconds"),
        *shell_call("2", {"command": "y"},
                    "Exit code: 1\nOutput:\nerror: the test says: command timed out after 3 milliseconds")))
    assert [(o.exit_code, o.timed_out) for s in codex.steps for o in s.observations] == [(124, True), (1, False)]
    claude = load_foreign(write_lines(tmp_path / "s.jsonl", [
        entry("user", "go"), entry("assistant", [call("a", "npm test")]),
        entry("user", [{**result("a", "Command timed out after 2m 0.0s"), "is_error": True}])]))
    assert [(o.exit_code, o.timed_out) for o in claude.steps[0].observations] == [(1, True)]


def test_a_call_the_human_rejected_never_ran(tmp_path):
    codex = load_foreign(rollout(
        tmp_path / "rollout-4.jsonl",
        *shell_call("1", {"command": ["sudo", "x"]}, "exec command rejected by user", name="shell"),
        *shell_call("2", {"command": ["ls"]}, "a.py", name="shell")))
    assert [o.executed for s in codex.steps for o in s.observations] == [False, True]
    claude = load_foreign(write_lines(tmp_path / "s.jsonl", [
        entry("user", "go"), entry("assistant", [call("a", "rm -rf build")]),
        entry("user", [{**result("a", "The user doesn't want to proceed with this tool use. The tool use was "
                                      "rejected (eg. if it was a file edit, the new_string was NOT written to the "
                                      "file)."), "is_error": True}])]))
    assert [(o.executed, o.exit_code) for o in claude.steps[0].observations] == [(False, 1)]


def test_codex_items_that_are_neither_the_models_nor_outputs_nor_messages_do_not_split_a_run(tmp_path):
    t = load_foreign(write_lines(tmp_path / "rollout-5.jsonl", [
        {"type": "session_meta", "payload": {"id": "r"}},
        item({"type": "reasoning", "summary": []}),
        item({"type": "ghost_snapshot", "ghost_commit": {"id": "abc"}}),
        item({"type": "function_call", "name": "shell", "call_id": "1", "arguments": '{"command": ["ls"]}'}),
        item({"type": "function_call_output", "call_id": "1", "output": "a.py"})]))
    assert outputs(t) == [["a.py"]] and len(t.steps[0].actions) == 1
