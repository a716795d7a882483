"""The fast reading of an `.eval` (messages as plain JSON, the rest through inspect-ai) gives, message by
message, what inspect-ai's full reader gives, on logs inspect-ai writes itself: several epochs, numeric
and string ids, tool calls and tool errors, content parts, and attachments (images, data URIs in tool
arguments and text parts, which inspect-ai's writer turns into `attachment://` references and its
reader resolves). A member in a shape the fast way does not know is read by inspect-ai."""

from __future__ import annotations

import json
import zipfile

import pytest

pytest.importorskip("inspect_ai", reason="the inspect extra is not installed: pip install -e '.[inspect]'")
from inspect_ai.event import ModelEvent  # noqa: E402
from inspect_ai.log import (  # noqa: E402
    EvalSample,
    EvalSampleLimit,
)
from inspect_ai.model import (  # noqa: E402
    ChatMessageAssistant,
    ChatMessageSystem,
    ChatMessageTool,
    ChatMessageUser,
    ContentImage,
    ContentReasoning,
    ContentText,
    GenerateConfig,
    ModelOutput,
)
from inspect_ai.tool import ToolCall, ToolCallError  # noqa: E402

from impasse.analysis.formats import inspect_eval_zip, inspect_log, inspect_messages  # noqa: E402
from impasse.analysis.importers import ImportProblem, load_sessions  # noqa: E402
from tests.unit.inspect_log_files import write_log  # noqa: E402

PNG = "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk"
LONG = "line of pytest output\n" * 40  # long enough for inspect-ai to keep it in the events as an attachment


def call(call_id: str, function: str, **arguments) -> ToolCall:
    return ToolCall(id=call_id, function=function, arguments=arguments)


def conversation(epoch: int) -> list:
    return [
        ChatMessageSystem(content="You are a coding agent."),
        ChatMessageUser(content=[ContentText(text="Fix the rounding bug."), ContentImage(image=PNG)]),
        ChatMessageAssistant(content=[ContentReasoning(reasoning="Tests first."), ContentText(text="Running them.")],
                             tool_calls=[call("c1", "bash", cmd="python3 -m pytest -q"),
                                         call("c2", "bash", cmd="ls -la", env={"N": [1, 2]})]),
        ChatMessageTool(content=LONG, tool_call_id="c1", function="bash",
                        error=ToolCallError("permission", "Permission denied: 'money.py'")),
        ChatMessageTool(content=[ContentText(text="total 8")], tool_call_id="c2", function="bash"),
        ChatMessageAssistant(content=f"Epoch {epoch}: one more look.", tool_calls=[call("c3", "python", code="1/0")]),
        ChatMessageTool(content="", tool_call_id="c3", function="python", error=ToolCallError("timeout", "timed out")),
        ChatMessageAssistant(content="", tool_calls=[call("c4", "submit", answer="Fixed the rounding.")]),
    ]


def attached(epoch: int) -> list:
    """Data URIs where inspect-ai's writer leaves `attachment://` references in the messages."""
    return [
        ChatMessageUser(content="Here is the screenshot."),
        ChatMessageAssistant(content=[ContentText(text="Saving it.")], tool_calls=[call("d1", "save", image=PNG)]),
        ChatMessageTool(content=[ContentText(text=PNG)], tool_call_id="d1", function="save"),
        ChatMessageAssistant(content="Escalating.", tool_calls=[call("d2", "escalate_to_human", reason=f"e{epoch}")]),
    ]


def model_event(messages: list) -> ModelEvent:
    return ModelEvent(model="openai/gpt-x", input=messages, tools=[], tool_choice="auto", config=GenerateConfig(),
                      output=ModelOutput.from_content("openai/gpt-x", LONG))


def sample(sample_id: int | str, epoch: int, messages: list, **extra) -> EvalSample:
    return EvalSample(id=sample_id, epoch=epoch, input="Fix the rounding bug.", target="", messages=messages,
                      events=[model_event(messages[:2])], started_at="2026-12-04T10:00:00+00:00",
                      completed_at="2026-12-04T10:02:30+00:00", **extra)


def both_ways(path) -> tuple[list, list]:
    """(id, epoch, messages) of each sample, the fast way and by inspect-ai's full reader."""
    fast = inspect_eval_zip.read_fast(path)
    assert fast is not None, "the fast way gave up on a log inspect-ai wrote"
    full = inspect_log.read_log(path)
    return ([(s.id, s.epoch, messages) for s, messages in fast[1]],
            [(s.id, s.epoch, [inspect_messages.message_dict(m) for m in s.messages]) for s in full.samples])


def assert_same(fast: list, full: list) -> None:
    assert [(i, e) for i, e, _ in fast] == [(i, e) for i, e, _ in full]
    for (sample_id, epoch, ours), (_, _, theirs) in zip(fast, full, strict=True):
        assert len(ours) == len(theirs), (sample_id, epoch)
        for index, (mine, reference) in enumerate(zip(ours, theirs, strict=True)):
            assert mine == reference, (sample_id, epoch, index)


@pytest.fixture
def log_path(tmp_path):
    samples = [sample(sample_id, epoch, conversation(epoch)) for epoch in (1, 2) for sample_id in (10, 9, "b", "a")]
    samples += [sample("attached", epoch, attached(epoch), limit=EvalSampleLimit(type="token", limit=100))
                for epoch in (1, 2)]
    return write_log(tmp_path / "log.eval", samples)


def test_the_fast_way_gives_the_full_readers_messages_one_by_one(log_path):
    fast, full = both_ways(log_path)
    assert len(fast) == 10 and [(i, e) for i, e, _ in fast][:4] == [(9, 1), (10, 1), ("a", 1), ("attached", 1)]
    assert_same(fast, full)


def test_attachments_in_messages_are_resolved_as_inspect_ai_resolves_them(log_path, monkeypatch):
    member = json.loads(zipfile.ZipFile(log_path).read("samples/attached_epoch_1.json"))
    assert "attachment://" in json.dumps(member["messages"])  # the writer did leave references
    deferred = []
    reader = inspect_eval_zip.read_eval_log_sample
    monkeypatch.setattr(inspect_eval_zip, "read_eval_log_sample", lambda *a, **k: deferred.append(k) or reader(*a, **k))
    fast, full = both_ways(log_path)
    assert_same(fast, full)
    assert sorted(k["id"] for k in deferred) == ["attached", "attached"]  # only those samples go to inspect-ai
    messages = next(m for i, _, m in fast if i == "attached")
    assert messages[1]["tool_calls"][0]["function"]["arguments"] == {"image": PNG}
    assert messages[2]["content"] == PNG


def test_sessions_are_the_same_either_way(log_path, monkeypatch):
    fast = load_sessions(log_path)
    monkeypatch.setattr(inspect_log, "read_eval_zip", lambda path: None)
    assert fast == load_sessions(log_path)
    assert [s.run_id for s in fast][:2] == ["impasse_tasks/9#1", "impasse_tasks/10#1"]


def rewrite(source, target, edit) -> None:
    """The log with one member's JSON edited (as an older inspect-ai or another writer may have it)."""
    with zipfile.ZipFile(source) as old, zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as new:
        for name in old.namelist():
            data = old.read(name)
            new.writestr(name, json.dumps(edit(json.loads(data))) if name == "samples/a_epoch_1.json" else data)


def deprecated(member: dict) -> dict:
    """`tool_error` for `error`, and `tc://` for `attachment://`: inspect-ai migrates both."""
    tool = member["messages"][3]
    tool["tool_error"] = tool.pop("error")["message"]
    member["attachments"]["old"] = "resolved from tc://"
    member["messages"][4]["content"] = [{"type": "text", "text": "tc://old"}]
    return member


def test_a_member_in_an_older_shape_is_read_by_inspect_ai(log_path, tmp_path):
    rewrite(log_path, tmp_path / "old.eval", deprecated)
    fast, full = both_ways(tmp_path / "old.eval")
    assert_same(fast, full)
    messages = next(m for i, e, m in fast if (i, e) == ("a", 1))
    assert messages[3]["content"].endswith("unknown: Permission denied: 'money.py'")
    assert messages[4]["content"] == "resolved from tc://"


def test_a_member_the_fast_way_cannot_read_is_the_full_readers_to_judge(log_path, tmp_path):
    rewrite(log_path, tmp_path / "odd.eval", lambda member: {**member, "messages": [{"role": "assistant"}]})
    assert inspect_eval_zip.read_fast(tmp_path / "odd.eval") is None
    with pytest.raises(ImportProblem, match=r"odd\.eval: not a readable Inspect log \(ValidationError"):
        load_sessions(tmp_path / "odd.eval")
