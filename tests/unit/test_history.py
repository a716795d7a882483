"""The history policy: what of the conversation the model is sent, never what the run records."""

from __future__ import annotations

import pytest

from impasse.episode.history import History, HistoryError


def conversation(outputs: list[str]) -> list[dict]:
    messages = [{"role": "system", "content": "s"}, {"role": "user", "content": "task"}]
    for number, output in enumerate(outputs):
        messages += [{"role": "assistant", "content": "", "tool_calls": [{"id": f"c{number}"}]},
                     {"role": "tool", "tool_call_id": f"c{number}", "content": output}]
    return messages


def test_full_sends_the_conversation_as_it_is():
    messages = conversation(["a" * 100, "b"])
    assert History.parse("full").view(messages) is messages


def test_last_n_keeps_the_latest_outputs_whole_and_says_how_much_was_elided():
    messages = conversation(["x" * 5000, "y" * 300, "z"])
    sent = History.parse("last:2").view(messages)
    tools = [m["content"] for m in sent if m["role"] == "tool"]
    assert tools == ["[5000 characters of old output elided by the history policy]", "y" * 300, "z"]
    assert messages[3]["content"] == "x" * 5000  # the loop's own list (and the record) keep everything
    assert [m["role"] for m in sent] == [m["role"] for m in messages]
    assert sent[3]["tool_call_id"] == "c0"  # the call it answers is still named: the wire needs it


@pytest.mark.parametrize("value", ["last:0", "last", "some", "last:-1"])
def test_a_policy_that_is_not_one_is_refused(value):
    with pytest.raises(HistoryError, match="use `full` or `last:N`"):
        History.parse(value)
