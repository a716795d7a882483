"""Logs kept in the shape their agent printed or saved them, read into steps: Gemini CLI's headless
stream-json output, pi's session files, a JSON Lines line with a stray backslash, a JSON document after
a CLI's own status line. Each with the status it records, where a human spoke, how it stopped."""

from __future__ import annotations

import json

import pytest

from impasse.analysis.importers import ImportProblem, detect, load_foreign
from impasse.analysis.normal_form import COMMAND, WRITE
from impasse.analysis.session_log import API_ERROR, INTERRUPTED, MAX_TOKENS
from impasse.analysis.verdicts import CLAIMED, OUT_OF_BUDGET, verdict_of
from impasse.dialects.claude_code import FAILED_STATUS_UNKNOWN
from impasse.vocabulary import Tool


def write_lines(path, records) -> None:
    path.write_text("".join(json.dumps(r) + "\n" for r in records))


def loaded(path, document):
    """The trajectory a JSON document saved at `path` reads as."""
    path.write_text(json.dumps(document))
    return load_foreign(path)


def stream(*events) -> list[dict]:
    head = [{"type": "init", "timestamp": "2026-01-30T06:16:21.938Z", "session_id": "0550b100",
             "model": "gemini-3-pro"},
            {"type": "message", "timestamp": "2026-01-30T06:16:21.940Z", "role": "user", "content": "Fix the build"}]
    return head + list(events)


def use(n: int, tool: str, **parameters) -> dict:
    return {"type": "tool_use", "timestamp": f"2026-01-30T06:16:{30 + n}.000Z", "tool_name": tool,
            "tool_id": f"{tool}-{n}", "parameters": parameters}


def result(n: int, name: str, output: str | None, status: str = "success", error: str | None = None) -> dict:
    record = {"type": "tool_result", "timestamp": f"2026-01-30T06:16:{30 + n}.500Z", "tool_id": f"{name}-{n}",
              "status": status, "output": output}
    if error:
        record["error"] = {"type": "invalid_tool_params", "message": error}
    return record


def said(text: str, n: int = 0) -> dict:
    return {"type": "message", "timestamp": f"2026-01-30T06:17:{n:02d}.000Z", "role": "assistant", "content": text,
            "delta": True}


def test_a_gemini_stream_is_its_steps_with_the_status_it_displays(tmp_path):
    path = tmp_path / "run.jsonl"
    write_lines(path, stream(
        said("Let me "), said("build it."), use(1, "run_shell_command", command="npm run build"),
        result(1, "run_shell_command", "sh: 1: tsc: not found"),
        use(2, "run_shell_command", command="tsc -v"), result(2, "run_shell_command", "Command exited with code: 127"),
        use(3, "activate_skill", name="build"), result(3, "activate_skill", None, "error", "Skill \"build\" not found"),
        use(4, "write_file", file_path="src/a.ts", content="export {}"), result(4, "write_file", None),
        said("tsc is not installed here; could you install typescript?", 1),
        {"type": "result", "timestamp": "2026-01-30T06:18:00.000Z", "status": "success",
         "stats": {"total_tokens": 5120, "input_tokens": 5000, "output_tokens": 120}}))
    t = load_foreign(path)
    assert (t.source, t.run_id, t.model, t.length) == ("gemini-stream", "0550b100", "gemini-3-pro", 5)
    first, second, third, fourth, last = t.steps
    assert first.text == "Let me build it." and [a.command for a in first.actions] == ["npm run build"]
    assert [(o.output, o.exit_code) for o in first.observations] == [("sh: 1: tsc: not found", None)]
    assert [o.exit_code for o in second.observations] == [127]
    assert [(o.output, o.exit_code) for o in third.observations] == \
        [("Skill \"build\" not found", FAILED_STATUS_UNKNOWN)]
    assert [(a.tool, a.path, a.kind) for a in fourth.actions] == [(Tool.EDIT_FILE, "src/a.ts", WRITE)]
    assert (last.text, last.actions) == ("tsc is not installed here; could you install typescript?", [])
    assert t.log is not None and len(t.log.steps) == 5 and t.log.total_tokens == 5120 and not t.log.stop


def test_a_gemini_stream_that_ended_on_an_error_says_so_and_a_human_turn_ends_a_step(tmp_path):
    path = tmp_path / "run.jsonl"
    write_lines(path, stream(
        use(1, "run_shell_command", command="ls"), result(1, "run_shell_command", "a.txt"),
        said("Done listing."), {"type": "message", "role": "user", "content": "now build"},
        said("Building."), {"type": "result", "status": "error",
                            "error": {"type": "FatalError", "message": "[API Error: 429 quota exceeded]"}}))
    t = load_foreign(path)
    assert [s.text for s in t.steps] == ["", "Done listing.", "Building."]
    assert [f.human_after for f in t.log.steps] == [False, True, False]
    assert t.log.stop and "429" in t.log.stop_line


def pi_session(*messages) -> list[dict]:
    records = [{"type": "session", "version": 3, "id": "019dcd91", "timestamp": "2026-04-27T08:10:29.847Z",
                "cwd": "/Users/u/app"},
               {"type": "model_change", "id": "9f59d35c", "parentId": None, "provider": "p", "modelId": "kimi-k2.5"}]
    for n, message in enumerate(messages):
        records.append({"type": "message", "id": f"m{n}", "parentId": None,
                        "timestamp": f"2026-04-27T08:11:{n:02d}.000Z", "message": message})
    return records


def assistant(*parts, stop: str = "toolUse", error: str | None = None) -> dict:
    message = {"role": "assistant", "content": list(parts), "model": "kimi-k2.5", "stopReason": stop,
               "usage": {"input": 1000, "output": 50, "cacheRead": 200, "cacheWrite": 0, "totalTokens": 1250,
                         "cost": {"total": 0.002}}}
    if error:
        message["errorMessage"] = error
    return message


def call(n: int, name: str, **arguments) -> dict:
    return {"type": "toolCall", "id": f"functions.{name}:{n}", "name": name, "arguments": arguments}


def tool_result(n: int, name: str, text: str, error: bool = False) -> dict:
    return {"role": "toolResult", "toolCallId": f"functions.{name}:{n}", "toolName": name,
            "content": [{"type": "text", "text": text}], "isError": error}


def test_a_pi_session_is_its_steps_with_each_commands_status(tmp_path):
    path = tmp_path / "session.jsonl"
    write_lines(path, pi_session(
        {"role": "user", "content": [{"type": "text", "text": "why does the build fail?"}]},
        assistant({"type": "text", "text": "Checking."}, call(1, "bash", command="pnpm run typecheck"),
                  call(2, "read", path="/Users/u/app/package.json")),
        tool_result(1, "bash", "error TS2307: Cannot find module 'uuid'\n\nCommand exited with code 2", error=True),
        tool_result(2, "read", "ENOENT: no such file or directory", error=True),
        assistant(call(3, "bash", command="ls"), call(4, "bash", command="sleep 999")),
        tool_result(3, "bash", "src\npackage.json"),
        tool_result(4, "bash", "Command timed out after 180 seconds", error=True),
        assistant(call(5, "edit", path="src/a.ts", oldText="a", newText="b")),
        tool_result(5, "edit", "Successfully replaced text in src/a.ts."),
        assistant({"type": "text", "text": "uuid is not installed: please run pnpm install."}, stop="stop"),
        {"role": "user", "content": [{"type": "text", "text": "thanks"}]}))
    t = load_foreign(path)
    assert (t.source, t.run_id, t.model, t.length) == ("pi", "019dcd91", "kimi-k2.5", 4)
    first, second, third, last = t.steps
    assert [(a.tool, a.kind) for a in first.actions][0] == (Tool.BASH, COMMAND)
    assert [o.exit_code for o in first.observations] == [2, FAILED_STATUS_UNKNOWN]
    assert [(o.exit_code, o.timed_out) for o in second.observations] == [(0, False), (None, True)]
    assert [(a.tool, a.path, a.content) for a in third.actions] == [(Tool.EDIT_FILE, "src/a.ts", "b")]
    assert last.text == "uuid is not installed: please run pnpm install."
    assert [f.human_after for f in t.log.steps] == [False, False, False, True]
    assert t.log.steps[0].usage["prompt_tokens"] == 1200 and t.log.steps[0].usd == pytest.approx(0.002)


def harness_result(n: int, name: str, text: str, details: dict) -> dict:
    return tool_result(n, name, text) | {"details": details}


def test_a_harness_on_pi_is_read_by_its_command_tool_and_the_status_it_keeps_beside_each_result(tmp_path):
    """OpenClaw's `exec` and its `details` (status, exit code, an error's own text where the result is
    that object as JSON, a command sent to the background); a tool's own error object fails its call."""
    error = ("Traceback (most recent call last):\r\nModuleNotFoundError: No module named 'docx'\n\n"
             "Command exited with code 1")
    path = tmp_path / "session.jsonl"
    write_lines(path, pi_session(
        assistant(call(1, "exec", command="python -c 'import docx'"), call(2, "exec", command="ls"),
                  call(3, "exec", command="pip install python-docx"), call(4, "exec", command="false"),
                  call(5, "edit", file="notes.md", oldText="a", newText="b")),
        harness_result(1, "exec", json.dumps({"status": "error", "tool": "exec", "error": error}, indent=2),
                       {"status": "error", "tool": "exec", "error": error}),
        harness_result(2, "exec", "a.docx", {"status": "completed", "exitCode": 0, "aggregated": "a.docx"}),
        harness_result(3, "exec", "Command still running (session faint-lagoon, pid 1880).",
                       {"status": "running", "sessionId": "faint-lagoon", "pid": 1880}),
        harness_result(4, "exec", "(no output)", {"status": "failed", "exitCode": 1}),
        harness_result(5, "edit", "Successfully replaced text in notes.md.", {"diff": "-a\n+b"}),
        assistant(call(6, "web_search", query="specs")),
        tool_result(6, "web_search", json.dumps({"error": "missing_brave_api_key",
                                                  "message": "web_search needs a Brave Search API key."})),
        assistant({"type": "text", "text": "Done."}, stop="stop")))
    first, searched, _ = load_foreign(path).steps
    assert [a.tool for a in first.actions] == [Tool.BASH] * 4 + [Tool.EDIT_FILE]
    assert first.actions[4].path == "notes.md"
    failed, listed, background, false, _ = first.observations
    assert failed.exit_code == FAILED_STATUS_UNKNOWN and failed.output.splitlines()[1] == \
        "ModuleNotFoundError: No module named 'docx'"
    assert (listed.exit_code, background.exit_code, false.exit_code) == (0, None, 1)
    assert searched.observations[0].exit_code == FAILED_STATUS_UNKNOWN


def test_a_harnesss_own_copy_of_what_it_delivered_is_no_reply_and_leaves_the_stop(tmp_path):
    """OpenClaw mirrors the provider's error into the session as an assistant message of its own."""
    mirror = {"role": "assistant", "content": [{"type": "text", "text": "HTTP 429: rate_limit_error: slow down"}],
              "provider": "openclaw", "model": "delivery-mirror", "stopReason": "stop"}
    path = tmp_path / "session.jsonl"
    write_lines(path, pi_session(assistant(call(1, "bash", command="ls")), tool_result(1, "bash", "a"),
                                 assistant(stop="error", error="429 rate_limit_error: slow down"), mirror))
    assert load_foreign(path).log.stop == API_ERROR


def test_a_harnesss_copy_after_the_human_spoke_is_no_step_and_its_text_is_no_reply(tmp_path):
    """The copy repeats a reply already read: read again, it would make a step of its own (or lengthen the
    last) and its words would count twice, as an ask or a claim the model never made at that point."""
    mirror = {"role": "assistant", "content": [{"type": "text", "text": "Please fill in your details."}],
              "provider": "openclaw", "model": "delivery-mirror", "stopReason": "stop"}
    human = {"role": "user", "content": [{"type": "text", "text": "hi"}]}
    path = tmp_path / "session.jsonl"
    write_lines(path, pi_session(assistant(call(1, "bash", command="ls")), tool_result(1, "bash", "a"),
                                 assistant({"type": "text", "text": "Listed."}, stop="stop"), mirror, human, mirror))
    loaded = load_foreign(path)
    assert len(loaded.steps) == len(loaded.log.steps) == 2
    assert loaded.steps[-1].text == "Listed." and "fill in" not in loaded.steps[-1].text


def test_a_harnesss_reply_tags_are_no_words_of_the_reply(tmp_path):
    """OpenClaw's `[[reply_to_current]]` says where the chat shows the reply: a headline after it opens the reply."""
    path = tmp_path / "session.jsonl"
    reply = {"type": "text", "text": "[[reply_to_current]] Ajustado.\n\nYa quedó guardado."}
    write_lines(path, pi_session(assistant(reply, stop="stop")))
    assert load_foreign(path).steps[-1].text == "Ajustado.\n\nYa quedó guardado."


@pytest.mark.parametrize("stop,error,kind", [("error", "429 Too Many Requests: rate limit", API_ERROR),
                                             ("aborted", None, INTERRUPTED), ("length", None, MAX_TOKENS)])
def test_a_pi_session_whose_last_reply_failed_or_was_aborted_says_how_it_stopped(tmp_path, stop, error, kind):
    path = tmp_path / "session.jsonl"
    write_lines(path, pi_session(assistant(call(1, "bash", command="ls")), tool_result(1, "bash", "a"),
                                 assistant(stop=stop, error=error)))
    assert load_foreign(path).log.stop == kind


def test_a_pi_session_whose_last_reply_hit_the_output_token_limit_ran_out_of_budget(tmp_path):
    """Ollama's 4096-token window spent on one reply's thinking: the reply is cut (`stopReason: length`)."""
    path = tmp_path / "session.jsonl"
    write_lines(path, pi_session(assistant(call(1, "bash", command="ls")), tool_result(1, "bash", "a"),
                                 assistant({"type": "thinking", "thinking": "Wait, is there"}, stop="length"),
                                 {"role": "user", "content": [{"type": "text", "text": "/exit"}]}))
    assert verdict_of(load_foreign(path)).kind == OUT_OF_BUDGET


def test_pi_and_gemini_streams_are_not_taken_for_each_other_or_for_claude_code_and_codex():
    assert detect(("jsonl", pi_session(assistant(call(1, "bash", command="ls"))))) == "pi"
    assert detect(("jsonl", stream(use(1, "run_shell_command", command="ls")))) == "gemini-stream"
    claude = {"type": "assistant", "message": {"role": "assistant", "content": []}, "sessionId": "s"}
    assert detect(("jsonl", [claude])) == "claude-code"


def test_a_line_with_a_stray_backslash_is_read_with_it_as_itself_and_a_warning(tmp_path):
    records = pi_session(assistant(call(1, "bash", command="dir")), tool_result(1, "bash", "C:PLACEHOLDER"),
                         assistant({"type": "text", "text": "listed"}, stop="stop"))
    lines = [json.dumps(r) for r in records]
    lines[3] = lines[3].replace("C:PLACEHOLDER", "C:\\Users\\x")  # written raw: `\U` and `\x` are no JSON escapes
    path = tmp_path / "session.jsonl"
    path.write_text("\n".join(lines) + "\n")
    t = load_foreign(path)
    assert t.steps[0].observations[0].output == "C:\\Users\\x" and t.length == 2
    assert len(t.problems) == 1 and "session.jsonl:4: a backslash" in t.problems[0]
    lines[3] = lines[3][:-20] + lines[3][-10:]  # the same line torn as well: no longer a stray backslash alone
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(ImportProblem, match="session.jsonl:4: invalid JSON line"):
        load_foreign(path)


def test_a_json_document_after_a_clis_own_status_line_is_read_with_a_warning(tmp_path):
    export = {"info": {"id": "ses_1"}, "messages": [
        {"info": {"role": "user", "id": "m1"}, "parts": [{"type": "text", "text": "hi"}]},
        {"info": {"role": "assistant", "id": "m2"}, "parts": [{"type": "text", "text": "hello"}]}]}
    path = tmp_path / "session.json"
    path.write_text("Exporting session: ses_1\n" + json.dumps(export, indent=2))
    t = load_foreign(path)
    assert t.length == 1 and any("1 line(s) before the JSON document left out" in p for p in t.problems)
    path.write_text("Exporting session: ses_1\nnot json at all\n")
    with pytest.raises(ImportProblem, match="invalid JSON"):
        load_foreign(path)


def copilot_event(kind: str, data: dict, wrapped: bool) -> dict:
    event = {"type": kind, "data": data, "id": kind, "timestamp": "2026-07-15T04:02:22.207Z", "parentId": None}
    return {"role": "", "content": "", "timestamp": event["timestamp"], "raw": event} if wrapped else event


@pytest.mark.parametrize("wrapped", [False, True])
def test_copilot_cli_events_are_their_steps_with_the_shells_status(tmp_path, wrapped):
    path = tmp_path / "events.jsonl"
    events = [("session.start", {"sessionId": "3599318b", "producer": "copilot-agent", "copilotVersion": "1.0.70"}),
              ("user.message", {"content": "upgrade the TUI"}),
              ("assistant.message", {"content": "Checking the toolchain.", "model": "claude-sonnet-5",
                                     "toolRequests": [{"toolCallId": "t1", "name": "bash",
                                                       "arguments": {"command": "go version"}},
                                                      {"toolCallId": "t2", "name": "web_fetch",
                                                       "arguments": {"url": "https://example.org/x"}}]}),
              ("tool.execution_complete", {"toolCallId": "t1", "success": True, "result": {
                  "content": "bash: go: command not found\n<shellId: 0 completed with exit code 127>"}}),
              ("tool.execution_complete", {"toolCallId": "t2", "success": False,
                                           "error": {"message": "Failed to fetch - status code 404"}}),
              ("assistant.message", {"content": "Go is not installed here; please install Go 1.26.",
                                     "model": "claude-sonnet-5", "toolRequests": []})]
    write_lines(path, [copilot_event(kind, data, wrapped) for kind, data in events])
    t = load_foreign(path)
    assert (t.source, t.run_id, t.model, t.length) == ("copilot-cli", "3599318b", "claude-sonnet-5", 2)
    first, last = t.steps
    assert [(a.tool, a.command) for a in first.actions][0] == (Tool.BASH, "go version")
    assert [(o.output, o.exit_code) for o in first.observations] == [
        ("bash: go: command not found", 127), ("Failed to fetch - status code 404", FAILED_STATUS_UNKNOWN)]
    assert last.text == "Go is not installed here; please install Go 1.26."


def test_copilot_cli_reading_a_detached_shell_is_that_shells_command_with_its_status(tmp_path):
    """A command still running when bash's wait ends goes on in a detached shell; read_bash returns its
    output so far (no status yet), then its status once it exits: each read is that command's output."""
    path = tmp_path / "events.jsonl"
    running = "<command with shellId: 0 is still running after 60 seconds. The command is still running.>"
    command = "node summarize.js https://example.org/v"
    exited = "<command with id: 0 exited with exit code 1>"
    events = [("session.start", {"sessionId": "s1", "producer": "copilot-agent"}),
              ("assistant.message", {"content": "", "toolRequests": [
                  {"toolCallId": "t1", "name": "bash", "arguments": {"command": command, "mode": "async"}}]}),
              ("tool.execution_complete", {"toolCallId": "t1", "success": True,
                                           "result": {"content": f"Summarising...\n{running}"}}),
              ("assistant.message", {"content": "", "toolRequests": [
                  {"toolCallId": "t2", "name": "read_bash", "arguments": {"shellId": "0", "delay": 60}}]}),
              ("tool.execution_complete", {"toolCallId": "t2", "success": True, "result": {
                  "content": "Summarising...\nError: Request timed out.\n" + exited}}),
              ("assistant.message", {"content": "", "toolRequests": [
                  {"toolCallId": "t3", "name": "read_bash", "arguments": {"shellId": "9"}}]}),
              ("tool.execution_complete", {"toolCallId": "t3", "success": True, "result": {"content": "?"}})]
    write_lines(path, [copilot_event(kind, data, False) for kind, data in events])
    started, read, unknown = load_foreign(path).steps
    assert [(o.output, o.exit_code) for o in started.observations] == [("Summarising...", None)]
    assert [(a.tool, a.command) for a in read.actions] == [(Tool.BASH, command)]
    assert [(o.output, o.exit_code) for o in read.observations] == [("Summarising...\nError: Request timed out.", 1)]
    assert unknown.actions[0].tool != Tool.BASH  # a shell never started here is no command of the session


def test_chat_messages_one_a_line_are_read_as_claude_codes_entries_whole_or_one_block_a_line(tmp_path):
    """A recorder's lines: the API's messages whole (a list of blocks), or one block a line with the
    tool's result as `role: tool` (Engram's way): the same steps, and a failed command's status."""
    whole = [{"timestamp": "2026-02-25T04:48:20Z", "role": "user", "content": "clone the repo"},
             {"timestamp": "2026-02-25T04:48:23Z", "role": "assistant", "model": "claude-opus-4-6", "content": [
                 {"type": "text", "text": "Cloning."},
                 {"type": "tool_use", "id": "u1", "name": "Bash", "input": {"command": "git clone git@x:y.git"}}]},
             {"timestamp": "2026-02-25T04:48:26Z", "role": "user", "content": [
                 {"type": "tool_result", "tool_use_id": "u1", "is_error": True,
                  "content": "Exit code 128\ngit@x: Permission denied (publickey)."}]},
             {"timestamp": "2026-02-25T04:48:30Z", "role": "assistant", "model": "claude-opus-4-6",
              "content": [{"type": "text", "text": "Your SSH key is not set up for x; please add it."}]}]
    blocks = [whole[0],
              {"timestamp": "2026-02-25T04:48:22Z", "role": "assistant",
               "content": {"type": "text", "text": "Cloning."}},
              {"timestamp": "2026-02-25T04:48:23Z", "role": "assistant", "content": {
                  "type": "tool_use", "tool_name": "Bash", "tool_id": "u1",
                  "input": {"command": "git clone git@x:y.git"}}},
              {"timestamp": "2026-02-25T04:48:26Z", "role": "tool", "content": {
                  "type": "tool_result", "tool_id": "u1",
                  "output": "Exit code 128\ngit@x: Permission denied (publickey)."}},
              {"timestamp": "2026-02-25T04:48:30Z", "role": "assistant", "content": {
                  "type": "text", "text": "Your SSH key is not set up for x; please add it."}}]
    for name, records in (("api.jsonl", whole), ("engram.jsonl", blocks)):
        path = tmp_path / name
        write_lines(path, records)
        t = load_foreign(path)
        assert (t.source, t.length) == ("message-lines", 2), name
        first, last = t.steps
        assert [(a.tool, a.command) for a in first.actions] == [(Tool.BASH, "git clone git@x:y.git")]
        assert [(o.output, o.exit_code) for o in first.observations] == \
            [("Exit code 128\ngit@x: Permission denied (publickey).", 128)]
        assert last.text == "Your SSH key is not set up for x; please add it."


def test_an_export_whose_messages_are_in_anthropics_form_is_read_as_those_messages(tmp_path):
    """Amp's thread: one JSON object whose `messages` hold Anthropic's blocks; a result's `run` holds the
    command's output and exit code, a read's content, or the tool's error; its Bash names the command
    `cmd`. Read as the same messages one a line would be, not as a mini-swe-agent trajectory."""
    thread = {"v": 3, "id": "T-1", "title": "push", "messages": [
        {"role": "user", "messageId": 0, "content": [{"type": "text", "text": "push it"}]},
        {"role": "assistant", "messageId": 1, "content": [
            {"type": "text", "text": "Pushing."},
            {"type": "tool_use", "id": "u1", "name": "Bash", "input": {"cmd": "git push origin main"}}]},
        {"role": "user", "messageId": 2, "content": [{"type": "tool_result", "toolUseID": "u1", "run": {
            "status": "done", "result": {"output": "fatal: could not read Username for 'https://github.com'",
                                         "exitCode": 128}}}]},
        {"role": "assistant", "messageId": 3, "content": [
            {"type": "tool_use", "id": "u2", "name": "Read", "input": {"path": "/w/x.css"}}]},
        {"role": "user", "messageId": 4, "content": [{"type": "tool_result", "toolUseID": "u2", "run": {
            "status": "error", "error": {"message": "File not found: file:///w/x.css"}}}]},
        {"role": "assistant", "messageId": 5, "content": [{"type": "text", "text": "Pushing needs a GitHub login."}],
         "state": {"type": "complete", "stopReason": "end_turn"}}]}
    t = loaded(tmp_path / "T-1.json", thread)
    assert (t.source, t.length) == ("message-lines", 3)
    push, read, last = t.steps
    assert [(a.tool, a.command) for a in push.actions] == [(Tool.BASH, "git push origin main")]
    assert push.observations[0].exit_code == 128 and "could not read Username" in push.observations[0].output
    assert read.observations[0].exit_code == FAILED_STATUS_UNKNOWN and "File not found" in read.observations[0].output
    assert last.text == "Pushing needs a GitHub login."


def test_a_cline_task_history_reads_its_results_said_as_text_as_the_calls_results(tmp_path):
    """Cline's `api_conversation_history.json`: a bare list of Anthropic-form messages whose tool results come
    back as the user's text (`[execute_command for 'jq --version'] Result:`) with the editor's details after."""
    details = "\n<environment_details>\n# VSCode Visible Files\nlogpipe/jq.py\n</environment_details>"
    history = [
        {"role": "user", "content": [{"type": "text", "text": "<task>\nFix the filter\n</task>"},
                                     {"type": "text", "text": details}]},
        {"role": "assistant", "content": [{"type": "text", "text": "Checking jq."},
                                          {"type": "tool_use", "id": "t1", "name": "execute_command",
                                           "input": {"command": "jq --version", "requires_approval": False}}]},
        {"role": "user", "content": [
            {"type": "text", "text": "[execute_command for 'jq --version'] Result:\nCommand executed.\nOutput:\n"
                                     "bash: jq: command not found"},
            {"type": "text", "text": details}]},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "t2", "name": "read_file",
                                           "input": {"path": "missing.py"}}]},
        {"role": "user", "content": [{"type": "text", "text": "[read_file for 'missing.py'] Result:\n"
                                                              "The tool execution failed with the following error:\n"
                                                              "<error>File not found</error>" + details}]},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "t3", "name": "attempt_completion",
                                           "input": {"result": "The filter is fixed."}}]}]
    t = loaded(tmp_path / "api_conversation_history.json", history)
    assert (t.source, t.length) == ("message-lines", 3)
    ran, read, done = t.steps
    assert [(a.tool, a.command) for a in ran.actions] == [(Tool.BASH, "jq --version")]
    assert [(o.output, o.exit_code) for o in ran.observations] == \
        [("Command executed.\nOutput:\nbash: jq: command not found", None)]
    assert read.observations[0].exit_code == FAILED_STATUS_UNKNOWN and "environment_details" not in \
        read.observations[0].output
    assert done.actions[0].tool == Tool.TASK_COMPLETE and t.ending == "task_complete"


def test_an_older_cline_history_reads_the_calls_it_wrote_as_xml_in_its_text(tmp_path):
    """Before native tool use, Cline wrote a call as XML in its reply; the result came back as user text."""
    history = [
        {"role": "user", "content": [{"type": "text", "text": "<task>\nFix the filter\n</task>"}]},
        {"role": "assistant", "content": [{"type": "text", "text": "<thinking>jq first</thinking>\nChecking jq.\n\n"
                                           "<execute_command>\n<command>jq --version</command>\n"
                                           "<requires_approval>false</requires_approval>\n</execute_command>"}]},
        {"role": "user", "content": [{"type": "text", "text": "[execute_command for 'jq --version'] Result:\n"
                                                              "Command executed.\nOutput:\n"
                                                              "bash: jq: command not found"}]},
        {"role": "assistant", "content": "<attempt_completion>\n<result>\njq is missing; install it to run the "
                                         "tests.\n</result>\n</attempt_completion>"}]
    t = loaded(tmp_path / "api_conversation_history.json", history)
    ran, done = t.steps
    assert ran.text == "Checking jq." and [(a.tool, a.command) for a in ran.actions] == [(Tool.BASH, "jq --version")]
    assert ran.observations[0].output.endswith("bash: jq: command not found")
    assert done.actions[0].tool == Tool.TASK_COMPLETE and "jq is missing" in done.actions[0].message


def test_clines_plan_mode_reply_is_the_replys_words_not_a_call_waiting_for_its_result(tmp_path):
    history = [
        {"role": "user", "content": [{"type": "text", "text": "<task>\nPlan the cache layer\n</task>"}]},
        {"role": "assistant", "content": [{"type": "text", "text": "<read_file>\n<path>app.py</path>\n</read_file>"}]},
        {"role": "user", "content": [{"type": "text", "text": "[read_file for 'app.py'] Result:\nimport flask"}]},
        {"role": "assistant", "content": [{"type": "text", "text": "<plan_mode_respond>\n<response>I've written "
                                           "the plan: a Redis cache in front of the catalog.</response>\n"
                                           "</plan_mode_respond>"}]}]
    t = loaded(tmp_path / "api_conversation_history.json", history)
    assert t.steps[-1].actions == [] and t.steps[-1].text.startswith("I've written the plan")
    assert verdict_of(t).kind == CLAIMED
