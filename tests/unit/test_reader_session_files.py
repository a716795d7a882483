"""Sessions saved whole as one JSON document by the agent CLIs: `opencode export` (read as the events
`opencode run --format json` prints) and a Gemini CLI chat saved as one object (read as the JSON Lines
session's header line with all its messages). Small made-up inputs in the shape of each."""

import json
from pathlib import Path

from impasse.analysis.importers import detect, load_foreign
from impasse.vocabulary import Tool

SESSION = "ses_0001"


def part(kind: str, message: str, n: int, **fields) -> dict:
    return {"type": kind, "id": f"prt_{message}_{n}", "sessionID": SESSION, "messageID": message, **fields}


def tool(message: str, n: int, name: str, status: str, args: dict, output: str | None = None, **state) -> dict:
    body = {"status": status, "input": args, **state}
    if output is not None:
        body["output"] = output
    return part("tool", message, n, tool=name, callID=f"call_{message}_{n}", state=body)


def assistant(message: str, parts: list[dict], **info) -> dict:
    return {"info": {"id": message, "sessionID": SESSION, "role": "assistant", "modelID": "model-b",
                     "time": {"created": 1700000000000}, **info}, "parts": parts}


def user(message: str, text: str) -> dict:
    return {"info": {"id": message, "sessionID": SESSION, "role": "user", "time": {"created": 1700000000000}},
            "parts": [part("text", message, 0, text=text)]}


FINISH = {"reason": "tool-calls", "cost": 0.01,
          "tokens": {"input": 10, "output": 5, "reasoning": 0, "cache": {"read": 3, "write": 0}}}
OPENCODE_EXPORT = {
    "info": {"id": SESSION, "title": "a task", "model": {"id": "model-a", "providerID": "p"}, "version": "1.0.0",
             "time": {"created": 1700000000000, "updated": 1700000100000}},
    "messages": [
        user("msg_1", "please build the thing"),
        assistant("msg_2", [
            part("step-start", "msg_2", 0),
            part("reasoning", "msg_2", 1, text="think first"),
            part("text", "msg_2", 2, text="Running the tests.", time={"start": 1700000001000}),
            tool("msg_2", 3, "bash", "completed", {"command": "make test"}, "make: gcc: not found\n",
                 metadata={"exit": 2}),
            part("step-finish", "msg_2", 4, **FINISH)]),
        assistant("msg_3", [
            part("step-start", "msg_3", 0),
            tool("msg_3", 1, "read", "completed", {"filePath": "src/main.c"}, "1: int main() {}"),
            tool("msg_3", 2, "bash", "error", {"command": "ls /nope"}, error="no such directory"),
            tool("msg_3", 3, "bash", "running", {"command": "sleep 100"}),
            part("step-finish", "msg_3", 4, **FINISH)]),
        user("msg_4", "go on"),
        assistant("msg_5", [part("step-start", "msg_5", 0), part("text", "msg_5", 1, text="Done."),
                            part("step-finish", "msg_5", 2, **FINISH)])]}


def write(tmp_path: Path, name: str, data, indent: int | None = 2) -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(data, indent=indent))
    return path


def test_an_opencode_export_is_read_as_the_events_it_holds(tmp_path):
    assert detect(OPENCODE_EXPORT) == "opencode-json"
    path = write(tmp_path, "session.json", OPENCODE_EXPORT)
    trajectory = load_foreign(path)
    assert (trajectory.source, trajectory.run_id, trajectory.model) == ("opencode", SESSION, "model-a")
    assert [s.text for s in trajectory.steps] == ["Running the tests.", "", "Done."]  # no human prompt, no thoughts
    first, second, third = trajectory.steps
    assert [(a.tool, a.command) for a in first.actions] == [(Tool.BASH, "make test")]
    assert [(o.output, o.exit_code) for o in first.observations] == [("make: gcc: not found\n", 2)]
    assert [a.tool for a in second.actions] == ["other", Tool.BASH, Tool.BASH]
    # the read's text, the failed call's error; the call still running when saved has none
    assert [(o.output, o.exit_code, o.kind) for o in second.observations] == [
        ("1: int main() {}", None, "read"), ("no such directory", 1, "command")]
    assert (third.actions, third.observations) == ([], [])
    assert len(trajectory.log.steps) == 3 and trajectory.log.steps[0].usage["prompt_tokens"] == 13
    assert len(load_foreign(path, "opencode-json").steps) == 3  # named, too


def test_an_opencode_export_without_a_session_model_takes_its_messages(tmp_path):
    info = {k: v for k, v in OPENCODE_EXPORT["info"].items() if k != "model"}
    trajectory = load_foreign(write(tmp_path, "s.json", {**OPENCODE_EXPORT, "info": info}))
    assert trajectory.model == "model-b"


GEMINI_CALL = {"id": "run_shell_command_1", "name": "run_shell_command", "args": {"command": "jq . a.json"},
               "status": "error", "result": [{"functionResponse": {
                   "id": "run_shell_command_1", "name": "run_shell_command",
                   "response": {"output": "Output: bash: jq: command not found\nExit Code: 127"}}}]}
GEMINI_CHAT = {
    "sessionId": "0000-aaaa", "projectHash": "f00d", "startTime": "2026-01-01T10:00:00.000Z",
    "lastUpdated": "2026-01-01T10:05:00.000Z", "kind": "main", "messages": [
        {"id": "u1", "timestamp": "2026-01-01T10:00:00.000Z", "type": "user", "content": [{"text": "pretty print"}]},
        {"id": "g1", "timestamp": "2026-01-01T10:00:05.000Z", "type": "gemini", "content": "", "model": "gem-x",
         "toolCalls": [GEMINI_CALL]},
        {"id": "u2", "timestamp": "2026-01-01T10:00:06.000Z", "type": "user",
         "content": GEMINI_CALL["result"]},
        {"id": "g1", "timestamp": "2026-01-01T10:00:05.000Z", "type": "gemini", "content": "", "model": "gem-x",
         "toolCalls": [GEMINI_CALL]},  # the same turn written again: one step
        {"id": "i1", "timestamp": "2026-01-01T10:00:07.000Z", "type": "info", "content": "an update"},
        {"id": "g2", "timestamp": "2026-01-01T10:00:09.000Z", "type": "gemini", "model": "gem-x",
         "content": "jq is missing; python -m json.tool instead."}]}


def test_a_gemini_cli_chat_saved_as_one_object(tmp_path):
    assert detect(GEMINI_CHAT) == "gemini-cli"
    path = write(tmp_path, "session-2026-01-01.json", GEMINI_CHAT)
    for trajectory in (load_foreign(path), load_foreign(path, "gemini-cli")):  # pretty-printed: no JSON Lines
        assert (trajectory.source, trajectory.run_id, trajectory.model) == ("gemini-cli", "0000-aaaa", "gem-x")
        assert [[(a.tool, a.command) for a in s.actions] for s in trajectory.steps] == [[(Tool.BASH, "jq . a.json")],
                                                                                       []]
        assert [(o.output, o.exit_code) for o in trajectory.steps[0].observations] == [
            ("bash: jq: command not found", 127)]
        assert trajectory.steps[1].text == "jq is missing; python -m json.tool instead."
        assert len(trajectory.log.steps) == 2


def test_a_one_line_gemini_session_file_is_still_json_lines(tmp_path):
    header = {k: v for k, v in GEMINI_CHAT.items() if k != "messages"}
    lines = [header, *GEMINI_CHAT["messages"]]
    path = tmp_path / "session.jsonl"
    path.write_text("\n".join(json.dumps(line) for line in lines) + "\n")
    assert len(load_foreign(path).steps) == 2


def test_a_gemini_chat_kept_as_api_content_reads_calls_from_their_parts(tmp_path):
    """A chat saved from the CLI's history: a turn's calls are `functionCall` parts of its content, their
    results `functionResponse` parts of the user messages after it (sent back more than once); an
    `error` record about a command the human typed (exporting the chat) is no end of the agent's work."""
    call = {"id": "run_shell_command_7", "name": "run_shell_command", "args": {"command": "jq . a.json"}}
    response = {"functionResponse": {"id": "run_shell_command_7", "name": "run_shell_command",
                                     "response": {"output": "Output: bash: jq: command not found\nExit Code: 127"}}}
    chat = {**{k: v for k, v in GEMINI_CHAT.items() if k != "messages"}, "messages": [
        {"id": "u1", "timestamp": "2026-01-01T10:00:00.000Z", "type": "user", "content": [{"text": "pretty print"}]},
        {"id": "g1", "timestamp": "2026-01-01T10:00:05.000Z", "type": "gemini", "model": "gem-x",
         "content": [{"text": "Planning.", "thought": True}, {"functionCall": call}]},
        {"id": "u2", "timestamp": "2026-01-01T10:00:06.000Z", "type": "user", "content": [response]},
        {"id": "u3", "timestamp": "2026-01-01T10:00:06.000Z", "type": "user", "content": [response]},
        {"id": "g2", "timestamp": "2026-01-01T10:00:09.000Z", "type": "gemini", "model": "gem-x",
         "content": [{"text": "Done! I pretty-printed a.json with python -m json.tool instead."}]},
        {"id": "e1", "timestamp": "2026-01-01T10:01:00.000Z", "type": "error",
         "content": "Failed to export session: ENOENT: no such file or directory, open '/home/u/~/chat.json'"}]}
    trajectory = load_foreign(write(tmp_path, "session.json", chat))
    assert [[(a.tool, a.command) for a in s.actions] for s in trajectory.steps] == [[(Tool.BASH, "jq . a.json")], []]
    assert [(o.output, o.exit_code) for o in trajectory.steps[0].observations] == [("bash: jq: command not found", 127)]
    assert trajectory.log.stop == ""
    from impasse.analysis.verdicts import CLAIMED, verdict_of
    assert verdict_of(trajectory).kind == CLAIMED
