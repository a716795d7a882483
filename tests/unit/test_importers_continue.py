"""Continue's saved sessions read into steps (LABELING.md rule 7): each `history` item's message in
OpenAI's keys, the model's reasoning between a reply's messages left out, a command's status taken from
its call's state (the tool message the model reads has none), a call the human canceled answered by
nothing and the human's next message ending the turn."""

from __future__ import annotations

import json

import pytest

from impasse.analysis.importers import ImportProblem, load_foreign
from impasse.analysis.normal_form import COMMAND, LIST, WRITE
from impasse.vocabulary import Tool


def call(call_id: str, name: str, **args) -> dict:
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": json.dumps(args)}}


def state(call_id: str, status: str, terminal: str | None = None) -> dict:
    output = {"name": "Terminal", "description": "", "content": ""}
    return {"status": status, "toolCallId": call_id, "output": [{**output, "status": terminal}] if terminal else []}


def item(role: str, content="", **fields) -> dict:
    message = {"role": role, "content": content, "id": f"m-{role}"}
    states = fields.pop("states", [])
    message.update(fields)
    return {"message": message, "contextItems": [], "toolCallStates": states} if states else {"message": message}


SESSION = {
    "sessionId": "02044b99", "title": "tidy the logs", "workspaceDirectory": "file:///c%3A/www/app",
    "mode": "agent", "chatModelTitle": "GPT-5.2",
    "history": [
        item("user", [{"type": "text", "text": "Delete the old logs."}]),
        item("assistant"),
        item("thinking", "**Finding logs** I should list them first."),
        item("assistant", toolCalls=[call("c1", "file_glob_search", pattern="**/*.log"),
                                     call("c2", "run_terminal_command", command="rm storage/old.log")],
             states=[state("c1", "done"), state("c2", "done", "Command failed with exit code 1")]),
        item("tool", "storage/old.log", toolCallId="c1"),
        item("tool", "rm: cannot remove 'storage/old.log': Permission denied\n", toolCallId="c2"),
        item("thinking", "Maybe create a note."),
        item("assistant", toolCalls=[call("c3", "create_new_file", filepath="NOTE.md", contents="logs kept\n"),
                                     call("c4", "run_terminal_command", command="ls storage")],
             states=[state("c3", "done"), state("c4", "done", "Command completed")]),
        item("tool", "Created NOTE.md", toolCallId="c3"),
        item("tool", "old.log\n", toolCallId="c4"),
        item("assistant", toolCalls=[call("c5", "run_terminal_command", command="sudo rm storage/old.log")],
             states=[state("c5", "canceled")]),
        item("user", [{"type": "text", "text": "Don't use sudo. Just tell me what to run."}]),
        item("assistant", "Run `del storage\\old.log` as the file's owner."),
    ],
}


def test_a_continue_session_is_read_into_its_steps(tmp_path):
    path = tmp_path / "02044b99.json"
    path.write_text(json.dumps(SESSION))
    trajectory = load_foreign(path)
    assert (trajectory.source, trajectory.model) == ("continue", "GPT-5.2")
    listed, noted, refused, told = trajectory.steps
    assert [a.kind for a in listed.actions] == [LIST, COMMAND] and "Finding logs" not in listed.text
    assert [(o.output.splitlines()[0], o.exit_code) for o in listed.observations] == [
        ("storage/old.log", None), ("rm: cannot remove 'storage/old.log': Permission denied", 1)]
    assert (noted.actions[0].tool, noted.actions[0].path, noted.actions[0].kind) == (Tool.EDIT_FILE, "NOTE.md", WRITE)
    assert [o.exit_code for o in noted.observations] == [None, 0]
    assert refused.actions[0].command == "sudo rm storage/old.log" and refused.observations == []
    assert told.text == "Run `del storage\\old.log` as the file's owner."
    assert [f.human_after for f in trajectory.log.steps] == [False, False, True, False]


@pytest.mark.parametrize("document", [
    {"sessionId": "s", "history": []},
    {"sessionId": "s", "history": [{"contextItems": []}]},
], ids=["no history", "no messages"])
def test_a_continue_shaped_file_without_messages_is_refused_by_name(tmp_path, document):
    path = tmp_path / "empty.json"
    path.write_text(json.dumps(document))
    with pytest.raises(ImportProblem, match=r"empty\.json: unknown trajectory format .*a Continue session"):
        load_foreign(path)
    assert json.loads(path.read_text()) == document
