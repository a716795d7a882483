"""The human's interrupt (Codex's `turn_aborted`, Claude Code's "[Request interrupted by user]") of the
model's turn ends the session as aborted; an interrupt of a turn the human opened after the model's
last reply ("exit") cut no work short, and the session ended on that reply."""

from __future__ import annotations

import json

import pytest

from impasse.analysis.importers import load_foreign
from impasse.analysis.verdicts import verdict_of

CLAIM = "Implemented the sync filters end-to-end; the tests were not run."


def rows(*after_claim: dict) -> list[dict]:
    item = [{"type": "response_item", "payload": p} for p in (
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "implement T103"}]},
        {"type": "function_call", "name": "shell", "call_id": "c1", "arguments": json.dumps({"command": ["ls"]})},
        {"type": "function_call_output", "call_id": "c1", "output": json.dumps({"output": "src\n",
                                                                                "metadata": {"exit_code": 0}})},
        {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": CLAIM}]})]
    return [{"type": "session_meta", "payload": {"id": "r1"}}, *item, *after_claim]


def user(text: str) -> dict:
    return {"type": "response_item", "payload": {"type": "message", "role": "user",
                                                 "content": [{"type": "input_text", "text": text}]}}


ABORTED = {"type": "event_msg", "payload": {"type": "turn_aborted", "reason": "interrupted"}}
NOTICE = user("<turn_aborted>\n  <reason>interrupted</reason>\n</turn_aborted>")
WORKING = {"type": "response_item", "payload": {"type": "function_call", "name": "shell", "call_id": "c2",
                                                "arguments": json.dumps({"command": ["npm", "test"]})}}


@pytest.mark.parametrize(("after_claim", "ending"), [
    ([user("exit"), NOTICE, ABORTED], "claimed done"),  # the human left: the session ended on the claim
    ([ABORTED], "aborted"),  # the model's own turn interrupted
    ([user("now run the tests"), WORKING, NOTICE, ABORTED], "aborted"),  # a new turn cut short mid-work
], ids=["human-left", "own-turn", "next-turn-mid-work"])
def test_an_interrupt_ends_the_session_only_where_it_cut_the_models_turn(tmp_path, after_claim, ending):
    path = tmp_path / "rollout-2026-01-24T10-00-00-r1.jsonl"
    path.write_text("".join(json.dumps(r | {"timestamp": f"2026-01-24T10:00:{i:02d}Z"}) + "\n"
                            for i, r in enumerate(rows(*after_claim))))
    assert verdict_of(load_foreign(path)).kind == ending


def claude_line(kind: str, content, n: int) -> dict:
    message = {"role": kind, "content": content}
    if kind == "assistant":
        message |= {"model": "claude-sonnet-4-5", "id": f"msg_{n}"}
    return {"type": kind, "message": message, "uuid": f"u{n}", "timestamp": f"2026-01-24T10:00:{n:02d}Z"}


@pytest.mark.parametrize(("after_claim", "ending"), [
    ([("user", "exit"), ("user", [{"type": "text", "text": "[Request interrupted by user]"}])], "claimed done"),
    ([("user", "now run the tests"),
      ("assistant", [{"type": "tool_use", "id": "t2", "name": "Bash", "input": {"command": "npm test"}}]),
      ("user", [{"type": "tool_result", "tool_use_id": "t2", "content": "[Request interrupted by user for tool use]",
                 "is_error": True}]),
      ("user", [{"type": "text", "text": "[Request interrupted by user]"}])], "aborted"),
], ids=["human-left", "next-turn-mid-work"])
def test_claude_codes_interrupt_ends_the_session_only_where_it_cut_the_models_turn(tmp_path, after_claim, ending):
    lines = [("user", "implement T103"), ("assistant", [{"type": "text", "text": CLAIM}]), *after_claim]
    path = tmp_path / "session.jsonl"
    path.write_text("".join(json.dumps(claude_line(k, c, i)) + "\n" for i, (k, c) in enumerate(lines)))
    assert verdict_of(load_foreign(path)).kind == ending
