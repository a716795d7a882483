"""The Gemini wire (Gemini CLI 0.61.0): real requests the CLI sent our fake model server read into
turns, tools and results; provider-side tools refused in Google's error shape; replies as one
GenerateContentResponse or as `data:`-only SSE chunks whose call ids come back on the CLI's
functionResponse; and the relay's door routing the model-in-the-path URLs to this wire."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from impasse.agents import wire_gemini
from impasse.agents.exchange import Reply, WireError
from impasse.agents.relay import Relay
from impasse.agents.relay_http import sse_event
from impasse.agents.tool_names import AgentCall
from impasse.models.turns import ModelTurn, ToolCall
from tests.unit.relay_clients import request

SAMPLES = Path(__file__).resolve().parents[1] / "data" / "wires" / "gemini"
STREAM = "/v1beta/models/relay-model:streamGenerateContent?alt=sse"
WHOLE = "/v1beta/models/relay-model:generateContent"
USAGE = {"prompt_tokens": 120, "completion_tokens": 30, "total_tokens": 150, "reasoning_tokens": 10}


def sample(name: str) -> dict:
    return json.loads((SAMPLES / f"{name}.json").read_text())


def chunks(events) -> list[dict]:
    """The SSE stream as relay_http writes it, read as the SDK reads it: `data: <json>` lines only."""
    text = "".join(sse_event(kind, data) for kind, data in events)
    blocks = [block for block in text.split("\n\n") if block]
    assert all(block.startswith("data: ") and "\n" not in block for block in blocks)
    return [json.loads(block.removeprefix("data: ")) for block in blocks]


def test_the_clis_first_turn_is_a_system_prompt_a_user_turn_and_its_tools():
    captured = sample("first-turn")
    exchange = wire_gemini.read_request(captured["body"], captured["path"])
    assert (exchange.api, exchange.model, exchange.stream, exchange.refused) == ("gemini", "gemini-2.5-pro", True, [])
    assert [turn.role for turn in exchange.turns] == ["system", "user"]
    assert exchange.turns[0].text.startswith("You are a non-interactive CLI agent")
    assert exchange.turns[1].text.startswith("<session_context>")
    assert exchange.turns[1].text.endswith("\nCreate probe.txt then escalate")
    assert {"run_shell_command", "replace", "write_file", "mcp_impasse_escalate_to_human",
            "mcp_impasse_task_complete"} <= exchange.offered.names
    shell = next(tool["function"] for tool in exchange.tools if tool["function"]["name"] == "run_shell_command")
    assert shell["parameters"]["required"] == ["command"] and shell["parameters"]["type"] == "object"


def test_the_clis_replayed_calls_and_results_are_joined_by_the_ids_it_sends():
    captured = sample("after-two-calls")
    turns = wire_gemini.read_request(captured["body"], captured["path"]).turns
    assert [turn.role for turn in turns] == ["system", "user", "assistant", "results", "assistant", "results"]
    shell, escalation = turns[2].calls[0], turns[4].calls[0]
    assert (shell.name, shell.arguments) == ("run_shell_command", {"command": "echo probe-ran > probe.txt; ls"})
    assert escalation.name == "mcp_impasse_escalate_to_human"
    assert [r.call_id for r in turns[3].results + turns[5].results] == [shell.id, escalation.id]
    assert turns[3].results[0].text.startswith("<untrusted_context>\nOutput: probe.txt")
    assert turns[3].results[0].is_error is False
    assert turns[2].carry == []  # the CLI's synthetic thoughtSignature is not carried


def test_a_history_without_ids_is_joined_by_name_and_order_as_the_gemini_api_does():
    body = copy.deepcopy(sample("after-two-calls")["body"])
    body["contents"][1]["parts"] = [{"functionCall": {"name": "run_shell_command", "args": {"command": "a"}}},
                                    {"functionCall": {"name": "run_shell_command", "args": {"command": "b"}}}]
    body["contents"][2]["parts"] = [{"functionResponse": {"name": "run_shell_command", "response": {"output": "A"}}},
                                    {"functionResponse": {"name": "run_shell_command", "response": {"error": "B"}}}]
    turns = wire_gemini.read_request(body, STREAM).turns
    first, second = turns[2].calls
    assert first.id != second.id
    assert [(r.call_id, r.text, r.is_error) for r in turns[3].results] == [(first.id, "A", False),
                                                                           (second.id, "B", True)]
    assert wire_gemini.read_request(body, STREAM).turns[2].calls[0].id == first.id  # the same id every request


def test_thoughts_are_not_said_and_another_vendors_carry_is_not_sent():
    body = {"contents": [{"role": "user", "parts": [{"text": "go"}]}, {"role": "model", "parts": [
        {"text": "weighing it", "thought": True}, {"text": "Do"}, {"text": "ne."}]}]}
    turn = wire_gemini.read_request(body, STREAM).turns[-1]
    assert (turn.role, turn.text, turn.carry) == ("assistant", "Done.", [])
    carried = Reply("ok", carry=[{"type": "thinking", "thinking": "x", "signature": "s"}])
    assert wire_gemini.reply_body(carried, "m")["candidates"][0]["content"]["parts"] == [{"text": "ok"}]


def test_a_declarations_openapi_parameters_are_read_as_json_schema():
    declaration = {"name": "bash", "description": "Run.", "parameters": {
        "type": "OBJECT", "properties": {"command": {"type": "STRING"}, "argv": {"type": "ARRAY", "items": {
            "type": "STRING"}}}, "required": ["command"]}}
    body = {"contents": [{"parts": [{"text": "go"}]}], "tools": [{"functionDeclarations": [declaration]}]}
    parameters = wire_gemini.read_request(body, WHOLE).tools[0]["function"]["parameters"]
    assert parameters == {"type": "object", "required": ["command"], "properties": {
        "command": {"type": "string"}, "argv": {"type": "array", "items": {"type": "string"}}}}


def test_the_routers_utility_call_is_a_whole_reply_with_no_tools():
    captured = sample("router-classifier")
    exchange = wire_gemini.read_request(captured["body"], captured["path"])
    assert (exchange.model, exchange.stream, exchange.tools) == ("gemini-3.5-flash-lite", False, [])
    assert [turn.role for turn in exchange.turns] == ["system", "user", "user"]


@pytest.mark.parametrize("tool", [{"googleSearch": {}}, {"codeExecution": {}}, {"urlContext": {}},
                                  {"googleSearchRetrieval": {}}, {"computerUse": {"environment": "browser"}}])
def test_a_provider_side_tool_is_refused(tool):
    body = sample("first-turn")["body"]
    exchange = wire_gemini.read_request(body | {"tools": body["tools"] + [tool]}, STREAM)
    assert exchange.refused == list(tool)
    assert wire_gemini.read_request(body | {"cachedContent": "cachedContents/abc"}, STREAM).refused == ["cachedContent"]


def test_errors_are_in_googles_shape():
    assert wire_gemini.error("invalid_request_error", "no") == {
        "error": {"code": 400, "message": "no", "status": "INVALID_ARGUMENT"}}
    assert wire_gemini.error("not_found", "gone")["error"]["status"] == "NOT_FOUND"
    assert wire_gemini.error("server_error", "down")["error"] == {"code": 500, "message": "down", "status": "INTERNAL"}
    assert wire_gemini.error("rate_limit_error", "slow")["error"]["status"] == "RESOURCE_EXHAUSTED"


@pytest.mark.parametrize(("body", "path", "words"), [
    ({}, STREAM, "contents"), ({"contents": "hi"}, STREAM, "contents"),
    ({"contents": [{"role": "user", "parts": "hi"}]}, STREAM, "contents[0]"),
    ({"contents": [{"role": "user", "parts": [{"text": "hi"}]}], "tools": {}}, STREAM, "tools"),
    ({"contents": [{"role": "user", "parts": [{"text": "hi"}]}]},
     "/v1beta/models/m:streamGenerateContent", "alt=sse")])
def test_a_malformed_request_is_a_wire_error_that_says_what_is_wrong(body, path, words):
    with pytest.raises(WireError, match=words.replace("[", r"\[").replace("]", r"\]")):
        wire_gemini.read_request(body, path)


def test_gemini_paths_carry_the_model_and_how_to_answer():
    assert wire_gemini.serves("/v1beta/models/gemini-2.5-pro:streamGenerateContent")
    assert wire_gemini.serves("/v1beta/models/my-relay-model:generateContent")
    assert not wire_gemini.serves("/v1beta/models/m:countTokens") and not wire_gemini.serves("/v1/messages")
    assert wire_gemini.model_of_path(STREAM) == "relay-model"
    assert wire_gemini.streams(STREAM) and not wire_gemini.streams(WHOLE)


def reply_with_calls() -> Reply:
    return Reply("Running it.", [AgentCall("call_1", "run_shell_command", {"command": "ls"}),
                                 AgentCall("call_2", "read_file", None)], USAGE)


def test_a_reply_is_one_generate_content_response():
    body = wire_gemini.reply_body(reply_with_calls(), "relay-model")
    candidate = body["candidates"][0]
    assert candidate["finishReason"] == "STOP" and candidate["content"]["role"] == "model"
    assert candidate["content"]["parts"] == [
        {"text": "Running it."},
        {"functionCall": {"id": "call_1", "name": "run_shell_command", "args": {"command": "ls"}}},
        {"functionCall": {"id": "call_2", "name": "read_file", "args": {}}}]
    assert body["usageMetadata"] == {"promptTokenCount": 120, "candidatesTokenCount": 20, "totalTokenCount": 150,
                                     "thoughtsTokenCount": 10}
    assert body["modelVersion"] == "relay-model"
    assert wire_gemini.reply_body(Reply("done"), "m")["candidates"][0]["content"]["parts"] == [{"text": "done"}]


def test_a_streamed_reply_is_data_only_chunks_and_its_ids_come_back_on_the_next_request():
    parsed = chunks(wire_gemini.events(reply_with_calls(), "relay-model"))
    assert [c["candidates"][0]["content"]["parts"][0].keys() for c in parsed] == [
        {"text"}, {"functionCall"}, {"functionCall"}]
    assert ["finishReason" in c["candidates"][0] for c in parsed] == [False, False, True]
    assert ["usageMetadata" in c for c in parsed] == [False, False, True]
    sent = [part for c in parsed for part in c["candidates"][0]["content"]["parts"]]
    # the CLI replays the model turn (with its synthetic signature) and answers each call by its id
    body = copy.deepcopy(sample("first-turn")["body"])
    calls = [part["functionCall"] for part in sent[1:]]
    body["contents"] += [
        {"role": "model", "parts": [sent[0]] + [p | {"thoughtSignature": "skip_thought_signature_validator"}
                                                for p in sent[1:]]},
        {"role": "user", "parts": [{"functionResponse": {"id": c["id"], "name": c["name"],
                                                         "response": {"output": "out"}}} for c in calls]}]
    turns = wire_gemini.read_request(body, STREAM).turns
    assert turns[-2].text == "Running it." and [c.id for c in turns[-2].calls] == ["call_1", "call_2"]
    assert [r.call_id for r in turns[-1].results] == ["call_1", "call_2"]


class Scripted:
    """A real-model stand-in behind the relay: a shell call, then done."""

    name = "test:gemini"

    def __init__(self) -> None:
        self.seen: list[list[dict]] = []

    def complete(self, messages, tools):
        self.seen.append(messages)
        if messages[-1]["role"] == "tool":
            return ModelTurn("done", usage=USAGE)
        return ModelTurn("", [ToolCall("call_7", "run_shell_command", {"command": "ls"}, '{"command": "ls"}')], USAGE)


def test_the_relay_serves_gemini_paths_with_this_wire(run_dir, monkeypatch):
    from impasse.agents import relay as relay_module

    monkeypatch.setitem(relay_module.SPOKEN, "codex", wire_gemini)  # a stand-in agent whose spec says gemini
    first = sample("first-turn")["body"]
    model = Scripted()
    with Relay(model, run_dir, agent="codex", speaks_impasse=False) as relay:
        status, headers, data = request(relay.socket_path, "POST", STREAM, first)
        parsed = chunks(("", json.loads(block.removeprefix("data: ")))
                        for block in data.decode().split("\n\n") if block)
        call = parsed[-1]["candidates"][0]["content"]["parts"][0]["functionCall"]
        answered = copy.deepcopy(first)
        answered["contents"] += [{"role": "model", "parts": [{"functionCall": call}]}, {"role": "user", "parts": [
            {"functionResponse": {"id": call["id"], "name": call["name"], "response": {"output": "a.txt"}}}]}]
        whole = request(relay.socket_path, "POST", WHOLE, answered)
        refused = request(relay.socket_path, "POST", STREAM, first | {"tools": [{"googleSearch": {}}]})
        broken = request(relay.socket_path, "POST", STREAM, {"contents": 3})
    assert status == 200 and headers["content-type"] == "text/event-stream"
    assert call == {"id": "call_7", "name": "run_shell_command", "args": {"command": "ls"}}
    assert json.loads(whole[2])["candidates"][0]["content"]["parts"] == [{"text": "done"}]
    assert model.seen[1][-1] == {"role": "tool", "tool_call_id": "call_7", "content": "a.txt"}
    assert refused[0] == 400 and json.loads(refused[2])["error"]["status"] == "INVALID_ARGUMENT"
    assert "googleSearch" in json.loads(refused[2])["error"]["message"]
    assert broken[0] == 400 and json.loads(broken[2])["error"]["code"] == 400
