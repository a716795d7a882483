"""Gemini CLI, Qwen Code and opencode, rule by rule (docs/importers.md), on small transcripts written
to the keys the real ones have (tests/data/agent-transcripts) and to the texts the agents' own code
writes (Gemini CLI 0.61.0's and Qwen Code 0.24.4's shell tools, opencode 1.18.33's bash tool): how a
Gemini session is replayed, the edit and verdict tools, failed, timed-out and cancelled calls."""

from __future__ import annotations

import json
from pathlib import Path

from impasse.analysis.formats.gemini_cli import shell_result, unwrap
from impasse.analysis.importers import load_foreign
from impasse.analysis.normal_form import ASK, LIST, READ, WRITE
from impasse.vocabulary import Ending, Tool


def write_lines(path: Path, records: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


def shapes(trajectory) -> list[list[tuple]]:
    return [[(a.tool, a.path or a.command or a.message) for a in s.actions] for s in trajectory.steps]


def codes(trajectory) -> list[list]:
    return [[o.exit_code for o in s.observations] for s in trajectory.steps]


# Gemini CLI

def gemini(msg_id: str, content: str = "", calls: list | None = None) -> dict:
    record = {"id": msg_id, "timestamp": "t", "type": "gemini", "content": content, "model": "gemini-x"}
    return {**record, "toolCalls": calls} if calls is not None else record


def gcall(call_id: str, name: str, args: dict, output: str | None = None, status: str = "success",
          error: str | None = None) -> dict:
    response = {"error": error} if error is not None else {"output": output}
    call = {"id": call_id, "name": name, "args": args, "status": status}
    if output is not None or error is not None:
        call["result"] = [{"functionResponse": {"id": call_id, "name": name, "response": response}}]
    return call


def wrapped(text: str) -> str:
    return f"<untrusted_context>\n{text}\n</untrusted_context>"


HEADER = {"sessionId": "g-1", "projectHash": "ab", "startTime": "t", "lastUpdated": "t", "kind": "main"}


def test_gemini_session_is_replayed_as_the_cli_loads_it(tmp_path):
    t = load_foreign(write_lines(tmp_path / "session-x.jsonl", [
        HEADER,
        {"id": "u0", "type": "user", "content": [{"text": "first try"}]},
        gemini("m0", "abandoned"),
        {"$set": {"messages": [{"id": "u1", "type": "user", "content": [{"text": "task"}]}]}},  # replaces them all
        gemini("m1"),  # written empty, then again with its calls
        {"$set": {"lastUpdated": "t2"}},
        gemini("m1", "", [gcall("c1", "run_shell_command", {"command": "ls"},
                                wrapped("Output: a.py\nProcess Group PGID: 9"))]),
        {"id": "u2", "type": "user", "content": [{"functionResponse": {"id": "c1", "name": "run_shell_command",
                                                                       "response": {"output": "repeated"}}}]},
        gemini("m2", "rewound away"),
        {"$rewindTo": "m2"},  # m2 and after are gone
        gemini("m3", "", [gcall("c3", "run_shell_command", {"command": "make"})]),  # its result only in u3
        {"id": "u3", "type": "user", "content": [{"functionResponse": {
            "id": "c3", "name": "run_shell_command", "response": {"output": wrapped("Output: boom\nExit Code: 2")}}}]},
        gemini("m4", [{"text": "hm", "thought": True}, {"text": "Stuck."}])]))
    assert t.source == "gemini-cli" and t.run_id == "g-1" and t.model == "gemini-x"
    assert shapes(t) == [[(Tool.BASH, "ls")], [(Tool.BASH, "make")], []]
    assert [[o.output for o in s.observations] for s in t.steps] == [["a.py"], ["boom"], []]
    assert codes(t) == [[0], [2], []] and t.steps[2].text == "Stuck." and t.ending == Ending.UNKNOWN


def test_gemini_shell_wrapper_gives_the_output_and_its_status():
    assert unwrap(wrapped("a &lt;/untrusted_context&gt; b")) == "a </untrusted_context> b"
    assert unwrap("plain") == "plain"
    assert shell_result("Output: (empty)\nProcess Group PGID: 12") == ("", 0, False)  # no Exit Code: 0
    assert shell_result("Output: x\nExit Code: 1\nProcess Group PGID: 12") == ("x", 1, False)
    assert shell_result("Output: Exit Code: 3") == ("Exit Code: 3", 0, False)  # the output's own words
    assert shell_result("Output: \nSignal: 15\nProcess Group PGID: 3") == ("", 1, False)  # killed, no number
    assert shell_result("Output: (empty)\nError: spawn bash ENOENT") == ("Error: spawn bash ENOENT", None, False)
    assert shell_result("Output: Error: no input files") == ("Error: no input files", 0, False)  # its own words
    cancelled = "Command was automatically cancelled because it exceeded the timeout of 5.0 minutes without output."
    assert shell_result(cancelled) == (cancelled, None, True)
    assert shell_result("Command moved to background (PID: 7). Output hidden.")[1:] == (None, False)


def test_gemini_edit_verdict_and_other_tools(tmp_path):
    t = load_foreign(write_lines(tmp_path / "s.jsonl", [HEADER, gemini("m1", "Fixing.", [
        gcall("a", "replace", {"file_path": "/w/a.py", "old_string": "x", "new_string": "y", "instruction": "i"},
              wrapped("Successfully modified file: /w/a.py (1 replacements).")),
        gcall("b", "write_file", {"file_path": "/w/b.py", "content": "print(1)"}, wrapped("ok")),
        gcall("c", "read_file", {"file_path": "/w/c.py"}, error="File not found: /w/c.py", status="error"),
        gcall("d", "glob", {"pattern": "*.py"}, wrapped("a.py")),
        gcall("e", "mcp_other_escalate_to_human", {"reason": "r"}, wrapped("x")),
        gcall("f", "mcp_impasse_task_complete", {"summary": "Fixed."}, wrapped("Completion recorded.")),
        gcall("g", "run_shell_command", {"command": "sleep 9"}, status="cancelled",
              output="Command was cancelled by user before it could complete. There was no output before it was "
                     "cancelled.")])]))
    (step,) = t.steps
    assert [a.tool for a in step.actions] == [Tool.EDIT_FILE, Tool.EDIT_FILE, "other", "other", "other",
                                              Tool.TASK_COMPLETE, Tool.BASH]
    assert [(a.path, a.content) for a in step.actions[:2]] == [("/w/a.py", "y"), ("/w/b.py", "print(1)")]
    assert [a.kind for a in step.actions[2:4]] == [READ, LIST]
    assert json.loads(step.actions[4].command)["name"] == "mcp_other_escalate_to_human"  # not impasse's server
    assert step.actions[5].message == "Fixed." and t.ending == Ending.TASK_COMPLETE
    assert [o.exit_code for o in step.observations] == [None, None, 1, None, None, None, None]
    assert step.observations[2].output == "File not found: /w/c.py" and step.observations[0].kind == WRITE
    assert step.observations[6].executed is False


# Qwen Code

def qwen(kind: str, parts: list, **extra) -> dict:
    role = {"assistant": "model", "user": "user", "tool_result": "user"}[kind]
    return {"uuid": "u", "sessionId": "q-1", "type": kind, "model": "qwen3-coder",
            "message": {"role": role, "parts": parts}, **extra}


def fcall(call_id: str, name: str, args: dict) -> dict:
    return {"functionCall": {"id": call_id, "name": name, "args": args}}


def fresult(call_id: str, name: str, text: str, status: str = "success", display=None, key: str = "output") -> dict:
    return qwen("tool_result", [{"functionResponse": {"id": call_id, "name": name, "response": {key: text}}}],
                toolCallResult={"callId": call_id, "status": status, "resultDisplay": display})


def shell_text(output: str, code: str, error: str = "(none)", signal: str = "(none)") -> str:
    return (f"Command: x\nDirectory: (root)\nOutput: {output}\nError: {error}\nExit Code: {code}\nSignal: {signal}\n"
            "Process Group PGID: (none)")


def test_qwen_code_steps_edits_failures_and_verdicts(tmp_path):
    telemetry = {"type": "system", "subtype": "ui_telemetry", "systemPayload": {}}
    t = load_foreign(write_lines(tmp_path / "q.jsonl", [
        qwen("user", [{"text": "fix it"}]),
        qwen("assistant", [{"text": "thinking", "thought": True}, {"text": "Testing."}]),
        telemetry,  # between the records of one reply: still one step
        qwen("assistant", [fcall("a", "run_shell_command", {"command": "pytest"})]),
        telemetry,
        fresult("a", "run_shell_command", shell_text("E   ModuleNotFoundError: No module named 'yaml'", "1"),
                status="error", display={"type": "shell_result", "exitCode": 1}, key="error"),
        qwen("assistant", [fcall("b", "edit", {"file_path": "/w/a.py", "old_string": "x", "new_string": "y"}),
                           fcall("c", "write_file", {"file_path": "/w/b.py", "content": "z"}),
                           fcall("d", "grep_search", {"pattern": "yaml"}),
                           fcall("e", "run_shell_command", {"command": "sleep 99"}),
                           fcall("f", "run_shell_command", {"command": "kill -9 $$"})]),
        fresult("b", "edit", "The file: /w/a.py has been updated."),
        fresult("c", "write_file", "Error: permission denied", status="error", key="error"),
        fresult("d", "grep_search", "No matches"),
        fresult("e", "run_shell_command", "Command timed out after 1000ms before it could complete. There was no "
                                          "output before it timed out.", status="error", key="error"),
        fresult("f", "run_shell_command", shell_text("(empty)", "(none)", signal="9")),
        qwen("user", [{"text": "go on"}]),  # a prompt ends the run
        qwen("assistant", [fcall("g", "mcp__impasse__escalate_to_human", {"reason": "yaml is not installed"})]),
        fresult("g", "mcp__impasse__escalate_to_human", "Escalation recorded.")]))
    first, second, third = t.steps
    assert t.run_id == "q-1" and t.model == "qwen3-coder" and first.text == "Testing."
    assert first.observations[0].output == "E   ModuleNotFoundError: No module named 'yaml'"
    assert codes(t) == [[1], [None, 1, None, None, 1], [None]]
    assert [(a.tool, a.path, a.content) for a in second.actions[:2]] == \
        [(Tool.EDIT_FILE, "/w/a.py", "y"), (Tool.EDIT_FILE, "/w/b.py", "z")]
    assert second.actions[2].kind == LIST and second.observations[3].timed_out
    assert [(a.tool, a.message, a.kind) for a in third.actions] == \
        [(Tool.ESCALATE_TO_HUMAN, "yaml is not installed", ASK)]
    assert t.ending == Ending.ESCALATE_TO_HUMAN


def test_qwen_code_shell_error_line_is_kept_and_the_text_status_read_without_a_display(tmp_path):
    t = load_foreign(write_lines(tmp_path / "q.jsonl", [
        qwen("assistant", [fcall("a", "run_shell_command", {"command": "nope"})]),
        fresult("a", "run_shell_command", shell_text("(empty)", "127", error="spawn /bin/bash ENOENT"))]))
    assert [(o.output, o.exit_code) for o in t.steps[0].observations] == [("Error: spawn /bin/bash ENOENT", 127)]


# opencode

def oc(kind: str, message: str, **part) -> dict:
    return {"type": kind, "timestamp": 1, "sessionID": "ses_1", "part": {"messageID": message, **part}}


def tool(part_id: str, message: str, name: str, args: dict, status: str = "completed", **state) -> dict:
    return oc("tool_use", message, id=part_id, type="tool", tool=name, callID=part_id,
              state={"status": status, "input": args, **state})


def test_opencode_steps_edits_failures_and_verdicts(tmp_path):
    timeout = ("(no output)\n\n<shell_metadata>\nshell tool terminated command after exceeding timeout 1000 ms. "
               "If this command is expected to take longer…\n</shell_metadata>")
    bash = tool("p2", "m1", "bash", {"command": "make"}, output="make: gcc: No such file or directory\n",
                metadata={"output": "", "exit": 2})
    t = load_foreign(write_lines(tmp_path / "run.txt", [  # stdout as captured, any name
        oc("step_start", "m1", id="p1", type="step-start"),
        oc("text", "m1", id="p0", type="text", text="Building."),
        bash, bash,  # printed twice: once
        oc("step_finish", "m1", id="p3", type="step-finish", reason="tool-calls"),
        oc("step_start", "m2", id="p4", type="step-start"),
        tool("p5", "m2", "edit", {"filePath": "/w/a.c", "oldString": "x", "newString": "y"}, output="Edit applied"),
        tool("p6", "m2", "write", {"filePath": "/w/b.c", "content": "z"}, status="error",
             error="Error: EACCES: permission denied"),
        tool("p7", "m2", "read", {"filePath": "/w/c.c"}, output="1: int"),
        tool("p8", "m2", "bash", {"command": "sleep 9"}, output=timeout, metadata={"exit": None}),
        oc("step_start", "m3", id="p9", type="step-start"),
        tool("p10", "m3", "impasse_task_complete", {"summary": "Built."}, output="Completion recorded."),
        {"type": "error", "timestamp": 2, "sessionID": "ses_1", "error": {"name": "APIError"}}]))
    assert t.source == "opencode" and t.run_id == "ses_1" and t.steps[0].text == "Building."
    read_call = json.dumps({"name": "read", "input": {"filePath": "/w/c.c"}})
    assert shapes(t) == [[(Tool.BASH, "make")], [(Tool.EDIT_FILE, "/w/a.c"), (Tool.EDIT_FILE, "/w/b.c"),
                                                 ("other", read_call), (Tool.BASH, "sleep 9")],
                         [(Tool.TASK_COMPLETE, "Built.")]]
    assert codes(t) == [[2], [None, 1, None, None], [None]]
    edit, write, read, sleep = t.steps[1].observations
    assert write.output == "Error: EACCES: permission denied" and read.kind == READ
    assert (sleep.output, sleep.timed_out) == ("", True) and t.ending == Ending.TASK_COMPLETE


def test_opencode_parts_of_a_new_message_open_a_step_without_a_step_start(tmp_path):
    t = load_foreign(write_lines(tmp_path / "o.jsonl", [
        tool("a", "m1", "bash", {"command": "ls"}, output="(no output)", metadata={"exit": 0}),
        tool("b", "m2", "bash", {"command": "pwd"}, output="/w\n", metadata={"exit": 0})]), "opencode-json")
    assert shapes(t) == [[(Tool.BASH, "ls")], [(Tool.BASH, "pwd")]]
    assert [[o.output for o in s.observations] for s in t.steps] == [[""], ["/w\n"]]


def test_opencode_parts_whose_ids_were_redacted_each_count(tmp_path):
    """An export that redacts its ids writes one id for every part: one id for all is no identity."""
    t = load_foreign(write_lines(tmp_path / "o.jsonl", [
        oc("step_start", "REDACTED", id="REDACTED", type="step-start"),
        tool("REDACTED", "REDACTED", "bash", {"command": "rg x"}, output="zsh:1: command not found: rg",
             metadata={"exit": 127}),
        oc("step_start", "REDACTED", id="REDACTED", type="step-start", snapshot="b"),
        tool("REDACTED", "REDACTED", "bash", {"command": "grep x"}, output="x\n", metadata={"exit": 0})]),
        "opencode-json")
    assert shapes(t) == [[(Tool.BASH, "rg x")], [(Tool.BASH, "grep x")]]


# What the logs say beyond their steps

def test_gemini_facts_tokens_a_human_prompt_and_an_error_at_the_end(tmp_path):
    t = load_foreign(write_lines(tmp_path / "g.jsonl", [
        HEADER,
        {**gemini("m1", "Hello."), "timestamp": "2026-01-01T00:00:00Z",
         "tokens": {"input": 100, "output": 7, "cached": 60, "thoughts": 3, "tool": 0, "total": 110}},
        {"id": "u1", "type": "user", "timestamp": "2026-01-01T00:01:00Z", "content": [{"text": "go on"}]},
        {**gemini("m2", "Working."), "timestamp": "2026-01-01T00:02:00Z"},
        {"id": "e1", "type": "error", "timestamp": "2026-01-01T00:03:00Z",
         "content": "[API Error: You have exhausted your capacity on this model.]"}]))
    first, second = t.log.steps
    assert first.usage == {"prompt_tokens": 100, "completion_tokens": 10, "cached_tokens": 60, "reasoning_tokens": 3}
    assert first.human_after and not second.human_after and second.usage is None
    assert second.at - first.at == 120 and t.log.ended_at - first.at == 180
    assert t.log.stop == "usage_limit" and t.log.stop_line.startswith("[API Error: You have exhausted")


def test_gemini_cancelling_the_request_after_the_last_reply_is_the_human_interrupting(tmp_path):
    asked = {**gemini("m1", "Which of the two toggles should stay global?"), "timestamp": "2026-01-01T00:00:00Z"}
    answer = {"id": "u1", "type": "user", "timestamp": "2026-01-01T00:01:00Z", "content": [{"text": "the chevrons"}]}
    cancel = {"id": "i1", "type": "info", "timestamp": "2026-01-01T00:01:30Z", "content": "Request cancelled."}
    login = {"id": "i2", "type": "info", "timestamp": "2026-01-01T00:01:40Z", "content": "Authentication succeeded\n"}
    t = load_foreign(write_lines(tmp_path / "g.jsonl", [HEADER, asked, answer, cancel, login]))
    assert (t.log.stop, t.log.stop_line) == ("interrupted", "Request cancelled.")
    went_on = [HEADER, asked, answer, cancel, gemini("m2", "Done: the chevrons toggle.")]
    assert load_foreign(write_lines(tmp_path / "a.jsonl", went_on)).log.stop == ""  # a reply after the cancel


def test_qwen_facts_sum_a_replys_records_and_mark_the_human_turn(tmp_path):
    usage = {"promptTokenCount": 50, "candidatesTokenCount": 9, "thoughtsTokenCount": 4, "cachedContentTokenCount": 8}
    t = load_foreign(write_lines(tmp_path / "q.jsonl", [
        qwen("assistant", [{"text": "a"}], timestamp="2026-01-01T00:00:00Z", usageMetadata=usage),
        qwen("assistant", [fcall("a", "run_shell_command", {"command": "ls"})], timestamp="2026-01-01T00:00:05Z",
             usageMetadata=usage),
        fresult("a", "run_shell_command", shell_text("x", "0")),
        qwen("user", [{"text": "and then?"}], timestamp="2026-01-01T00:01:00Z"),
        qwen("assistant", [{"text": "b"}], timestamp="2026-01-01T00:02:00Z")]))
    first, second = t.log.steps
    assert first.usage == {"prompt_tokens": 100, "completion_tokens": 18, "cached_tokens": 16, "reasoning_tokens": 8}
    assert first.human_after and second.usage is None and t.log.ended_at - first.at == 120


def test_opencode_facts_tokens_cost_and_the_sessions_error(tmp_path):
    finish = oc("step_finish", "m1", id="f1", type="step-finish", reason="tool-calls", cost=0.0125,
                tokens={"input": 40, "output": 6, "reasoning": 2, "cache": {"read": 100, "write": 10}})
    t = load_foreign(write_lines(tmp_path / "o.jsonl", [
        {**oc("step_start", "m1", id="s1", type="step-start"), "timestamp": 1767225600000},
        tool("t1", "m1", "bash", {"command": "ls"}, output="a\n", metadata={"exit": 0}), finish,
        {"type": "error", "timestamp": 1767225660000, "sessionID": "ses_1",
         "error": {"name": "APIError", "data": {"message": "Rate limit exceeded, retry later"}}}]))
    (step,) = t.log.steps
    assert step.usage == {"prompt_tokens": 150, "completion_tokens": 8, "cached_tokens": 100,
                          "cache_write_tokens": 10, "reasoning_tokens": 2}
    assert step.usd == 0.0125 and step.at == 1767225600.0 and t.log.ended_at == 1767225660.0
    # a rate limit is the endpoint refusing for now, not the account's budget (dialects/failures.py)
    assert (t.log.stop, t.log.stop_line) == ("api_error", "Rate limit exceeded, retry later")
