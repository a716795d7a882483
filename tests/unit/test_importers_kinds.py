"""Foreign tool kinds in the normal form (docs/metrics.md, "Foreign tool kinds"): every foreign tool
recorded as what it is — command, read, list, write, ask or other — on its action and on the
observation that answers it, whatever the harness calls it."""

import json
from pathlib import Path

import pytest

from impasse.analysis.formats.common import tool_kind
from impasse.analysis.importers import load_foreign
from impasse.analysis.normal_form import ASK, COMMAND, LIST, OTHER, READ, WRITE, Action, obs_from_dict
from impasse.vocabulary import Tool


@pytest.mark.parametrize("name,arguments,kind", [
    ("Bash", None, COMMAND), ("PowerShell", None, COMMAND), ("exec_command", None, COMMAND),
    ("shell", None, COMMAND), ("local_shell_call", None, COMMAND), ("write_stdin", None, COMMAND),
    ("Read", None, READ), ("NotebookRead", None, READ), ("WebFetch", None, READ), ("view_image", None, READ),
    ("Grep", None, LIST), ("Glob", None, LIST), ("LS", None, LIST), ("find_file", None, LIST),
    ("search_dir", None, LIST),
    ("Edit", None, WRITE), ("Write", None, WRITE), ("MultiEdit", None, WRITE), ("apply_patch", None, WRITE),
    ("str_replace_editor", {"command": "create"}, WRITE), ("str_replace_editor", {"command": "str_replace"}, WRITE),
    ("str_replace_editor", {"command": "view"}, READ),
    ("AskUserQuestion", None, ASK), ("request_user_input", None, ASK),
    ("mcp__files__read_file", None, READ),
    ("run_shell_command", None, COMMAND), ("read_many_files", None, READ), ("search_file_content", None, LIST),
    ("grep_files", None, LIST), ("replace", None, WRITE),  # Gemini CLI's and Codex's newer tools
    # a tool that searches logs or traces lists what others printed
    ("mcp_lms_logs_search", None, LIST), ("mcp__obs__get_traces", None, LIST), ("logs_error_count", None, OTHER),
    ("TodoWrite", None, OTHER), ("Task", None, OTHER), ("update_plan", None, OTHER), ("", None, OTHER)])
def test_a_foreign_tool_is_what_it_does(name, arguments, kind):
    assert tool_kind(name, arguments) == kind


def test_impasse_own_tools_have_their_kinds():
    assert [Action(t).kind for t in Tool] == [COMMAND, WRITE, OTHER, ASK]
    assert obs_from_dict({"output": "", "exit_code": 0, "tool": "edit_file"}).kind == WRITE
    assert obs_from_dict({"output": "", "exit_code": 0}).kind == COMMAND  # the atlas' samples: commands


def write_lines(path: Path, records: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


def claude(kind: str, content: list, sidechain: bool = False, **extra) -> dict:
    return {"type": kind, "isSidechain": sidechain, "sessionId": "s1",
            "message": {"role": kind, "model": "claude-x", "content": content}, **extra}


def use(call_id: str, name: str, **arguments) -> dict:
    return {"type": "tool_use", "id": call_id, "name": name, "input": arguments}


def result(call_id: str, text: str, **extra) -> dict:
    return {"type": "tool_result", "tool_use_id": call_id, "content": text, **extra}


def test_claude_code_observations_carry_the_kind_of_their_call(tmp_path):
    t = load_foreign(write_lines(tmp_path / "s.jsonl", [
        claude("user", [{"type": "text", "text": "fix it"}]),
        claude("assistant", [use("a", "Read", file_path="/w/errors.md")]),
        claude("assistant", [use("b", "Grep", pattern="EACCES")]),
        claude("assistant", [use("c", "Bash", command="make")]),
        claude("user", [result("a", "     1→EACCES: permission denied")]),
        claude("user", [result("b", "src/x.js:3: EACCES")]),
        claude("user", [result("c", "Exit code 2\nmake: *** [all] Error 2", is_error=True)])]))
    (step,) = t.steps  # one reply written as three entries is one step
    assert [a.kind for a in step.actions] == [READ, LIST, COMMAND]
    assert [(o.kind, o.exit_code) for o in step.observations] == [(READ, None), (LIST, None), (COMMAND, 2)]


def codex(payload: dict) -> dict:
    return {"type": "response_item", "payload": payload}


def test_codex_observations_carry_the_kind_of_their_call(tmp_path):
    t = load_foreign(write_lines(tmp_path / "rollout-1.jsonl", [
        {"type": "session_meta", "payload": {"id": "r1"}},
        codex({"type": "function_call", "name": "exec_command", "call_id": "1", "arguments": '{"cmd": "ls"}'}),
        codex({"type": "custom_tool_call", "name": "apply_patch", "call_id": "2",
               "input": "*** Begin Patch\n*** Add File: a.txt\n+x\n*** End Patch"}),
        codex({"type": "function_call", "name": "request_user_input", "call_id": "3", "arguments": "{}"}),
        codex({"type": "function_call_output", "call_id": "1", "output": "Process exited with code 0\nOutput:\na"}),
        codex({"type": "custom_tool_call_output", "call_id": "2",
               "output": json.dumps({"output": "Success.", "metadata": {"exit_code": 0}})}),
        codex({"type": "function_call_output", "call_id": "3", "output": "answered"})]))
    (step,) = t.steps
    assert [a.kind for a in step.actions] == [COMMAND, WRITE, ASK]
    assert [(o.kind, o.exit_code, o.output) for o in step.observations] == \
        [(COMMAND, 0, "Process exited with code 0\nOutput:\na"), (WRITE, 0, "Success."), (ASK, None, "answered")]


def test_openhands_observations_carry_their_kind():
    samples = Path(__file__).resolve().parents[1] / "data" / "importer-samples"
    t = load_foreign(samples / "openhands-events.json")
    run, think, edit, read, _, _ = t.steps
    assert [o.kind for o in run.observations] == [COMMAND] and [a.kind for a in read.actions] == [READ]
    assert [o.kind for o in edit.observations] == [WRITE] and [o.kind for o in read.observations] == [READ]
    assert [o.kind for o in think.observations] == [OTHER]


def test_swe_agent_own_tools_have_kinds_and_shell_commands_are_commands(tmp_path):
    entries = [{"action": a, "observation": "x", "thought": ""} for a in
               ("open src/app.py", "find_file errors.md", "str_replace_editor view /w/a.py",
                "str_replace_editor create /w/b.py --file_text x", "cat /w/a.py", "ls -la", "submit")]
    path = tmp_path / "r.traj"
    path.write_text(json.dumps({"info": {"exit_status": "submitted"}, "history": [], "trajectory": entries}))
    t = load_foreign(path)
    assert [s.actions[0].kind for s in t.steps] == [READ, LIST, READ, WRITE, COMMAND, COMMAND, OTHER]
    assert [s.observations[0].kind for s in t.steps] == [READ, LIST, READ, WRITE, COMMAND, COMMAND, OTHER]


def test_an_openhands_error_observation_is_a_failure_of_the_call_it_answers(tmp_path):
    events = [{"id": 1, "source": "agent", "action": "read", "args": {"path": "/w/secret.txt"}},
              {"id": 2, "source": "agent", "observation": "error", "cause": 1,
               "content": "[Errno 13] Permission denied: '/w/secret.txt'"},
              {"id": 3, "source": "agent", "action": "run", "args": {"command": "ls"}},
              {"id": 4, "source": "agent", "observation": "run", "cause": 3, "content": "a.py",
               "extras": {"metadata": {"exit_code": 0}}}]
    path = tmp_path / "events.json"
    path.write_text(json.dumps(events))
    read, run = load_foreign(path, "openhands").steps
    assert [(o.kind, o.exit_code) for o in read.observations] == [(READ, 1)]
    assert [(o.kind, o.exit_code) for o in run.observations] == [(COMMAND, 0)]
