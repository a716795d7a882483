"""A Gemini CLI chat kept as the Gemini API's history (`/chat share x.json`, `/chat save` checkpoints):
recognised, stepped by runs of model contents, each call paired with its response by id or by order,
a shell result's status read as the CLI's session file reads it, and the human's turns found."""

from __future__ import annotations

import json

from impasse.analysis.importers import detect, load_foreign
from impasse.analysis.verdicts import handed_back, verdict_of
from impasse.vocabulary import Tool


def shell(command: str) -> dict:
    return {"functionCall": {"name": "run_shell_command", "args": {"command": command}}}


def response(name: str, output: str, id_: str | None = None) -> dict:
    found = {"name": name, "response": {"output": output}}
    return {"functionResponse": {**found, "id": id_} if id_ else found}


HISTORY = [
    {"role": "user", "parts": [{"text": "<session_context>\nThis is the Gemini CLI.</session_context>"}]},
    {"role": "user", "parts": [{"text": "Run the tests and fix what fails."}]},
    {"role": "model", "parts": [{"text": "Checking the tools first.", "thought": True}, {"text": "Running the suite."},
                                shell("npm test"), shell("jq --version")]},
    # the responses of one turn, in the order of its calls, with ids the calls never had
    {"role": "user", "parts": [response("run_shell_command", "Output: sh: vitest: command not found\nExit Code: 127",
                                        "run_shell_command_1_0"),
                               response("run_shell_command", "Output: jq-1.7.1", "run_shell_command_1_1")]},
    {"role": "model", "parts": [{"text": "vitest is not installed: `npm install` has not been run here."}]},
    {"role": "user", "parts": [{"text": "Go ahead and install it."}]},
    {"role": "model", "parts": [shell("npm install")]},
    {"role": "model", "parts": [shell("npm test")]},  # a second model content in the same run: one step
    {"role": "user", "parts": [response("run_shell_command", "Output: added 210 packages"),
                               response("run_shell_command", "Output: 12 passed")]},
    {"role": "model", "parts": [{"text": "All 12 tests pass now."}]},
]


def test_the_api_history_is_recognised_and_stepped_by_runs_of_model_contents(tmp_path):
    path = tmp_path / "checkpoint-fix.json"
    path.write_text(json.dumps(HISTORY), encoding="utf-8")
    assert detect(HISTORY) == "gemini-contents"
    trajectory = load_foreign(path)
    assert trajectory.source == "gemini-cli" and len(trajectory.steps) == 4
    first, second, third, last = trajectory.steps
    assert first.text.strip() == "Running the suite." and [a.tool for a in first.actions] == [Tool.BASH, Tool.BASH]
    assert [(o.output, o.exit_code) for o in first.observations] == [("sh: vitest: command not found", 127),
                                                                      ("jq-1.7.1", 0)]
    assert [a.command for a in third.actions] == ["npm install", "npm test"]
    assert [o.output for o in third.observations] == ["added 210 packages", "12 passed"]
    assert handed_back(trajectory, second.index) and not handed_back(trajectory, first.index)
    assert verdict_of(trajectory).kind == "claimed done" and last.actions == []


def test_a_list_of_chat_messages_is_not_taken_for_an_api_history():
    messages = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]
    assert detect(messages) != "gemini-contents"
    assert detect([{"role": "user", "parts": [{"text": "only the human"}]}]) != "gemini-contents"
