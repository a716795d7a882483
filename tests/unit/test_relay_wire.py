"""The relay's door: only model calls, provider-side tools refused in each API's own error shape,
a retried request answered once, JSON replies, and real provider adapters behind it (over local
servers that speak the providers' wire formats) seeing the agent's tools unchanged."""

from __future__ import annotations

import json
import time

import pytest

from impasse.agents.relay import STOP, Relay
from impasse.episode.rundir import RunDir, read_steps
from impasse.models import make_model
from impasse.models.scripted import Edit, Playbook, ScriptedPolicy
from impasse.vocabulary import Ending
from tests.integration.endpoints import anthropic_tool_use, openai_tool_call
from tests.unit.relay_clients import (
    CLAUDE_HEADERS,
    CODEX_HEADERS,
    CODEX_TOOLS,
    ClaudeCode,
    Codex,
    UnixConnection,
    claude_blocks,
    request,
    responses_items,
    sse,
)


class Counting(ScriptedPolicy):
    """The oracle, counting the requests that reached it."""

    asked = 0

    def complete(self, messages, tools):
        self.asked += 1
        return super().complete(messages, tools)


@pytest.fixture
def policy():
    return Counting("oracle", Playbook((Edit("calc.py", "a\n", "b\n"),), "true", False), seed=0)


def logged(run: RunDir) -> list[dict]:
    return [json.loads(line) for line in (run.path / "relay.jsonl").read_text().splitlines()]


@pytest.fixture(autouse=True)
def keys(monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")


def test_anything_but_a_model_call_is_not_found(run_dir, policy, tmp_path):
    with Relay(policy, run_dir, agent="claude-code") as relay:
        answers = [request(relay.socket_path, method, path, body)
                   for method, path, body in (("GET", "/v1/models", None), ("HEAD", "/", None),
                                              ("POST", "/v1/chat/completions", {"messages": []}),
                                              ("DELETE", "/v1/messages", None), ("POST", "/api/hello", {}))]
    assert [status for status, _, _ in answers] == [404] * 5
    assert json.loads(answers[0][2])["error"]["type"] == "not_found_error"
    assert [entry["status"] for entry in logged(run_dir)] == [404] * 5
    assert policy.asked == 0 and read_steps(run_dir.steps) == ([], [])


@pytest.mark.parametrize("tool", [{"type": "web_search_20250305", "name": "web_search", "max_uses": 5},
                                  {"type": "web_fetch_20250910", "name": "web_fetch"},
                                  {"type": "code_execution_20250825", "name": "code_execution"},
                                  {"type": "bash_20250124", "name": "bash"},
                                  {"type": "mcp_toolset", "mcp_server_name": "remote"}])
def test_an_anthropic_provider_side_tool_is_refused(run_dir, policy, tmp_path, tool):
    with Relay(policy, run_dir, agent="claude-code") as relay:
        side = ClaudeCode(relay.socket_path, tmp_path)
        body = side.body() | {"tools": side.body()["tools"] + [tool]}
        status, _, data = request(relay.socket_path, "POST", "/v1/messages?beta=true", body, CLAUDE_HEADERS)
    error = json.loads(data)
    assert status == 400 and error["type"] == "error" and error["error"]["type"] == "invalid_request_error"
    assert tool["type"] in error["error"]["message"]
    assert policy.asked == 0 and logged(run_dir)[0]["kind"] == "refused"


@pytest.mark.parametrize("tool", [{"type": "web_search", "external_web_access": True,
                                   "search_content_types": ["text", "image"]},
                                  {"type": "web_search_preview"}, {"type": "file_search", "vector_store_ids": ["v"]},
                                  {"type": "code_interpreter", "container": {"type": "auto"}},
                                  {"type": "image_generation"}, {"type": "computer_use_preview"},
                                  {"type": "mcp", "server_label": "x", "server_url": "https://example.invalid"},
                                  {"type": "tool_search"}])
def test_a_responses_provider_side_tool_is_refused(run_dir, policy, tmp_path, tool):
    """Codex 0.171.0 offers `web_search` unless its config says `web_search = "disabled"`."""
    with Relay(policy, run_dir, agent="codex") as relay:
        side = Codex(relay.socket_path, tmp_path, tools=CODEX_TOOLS + [tool])
        status, _, data = request(relay.socket_path, "POST", "/v1/responses", side.body(), CODEX_HEADERS)
    error = json.loads(data)["error"]
    assert status == 400 and error["type"] == "invalid_request_error" and tool["type"] in error["message"]
    assert policy.asked == 0


def test_the_agents_own_tools_and_client_side_tool_search_pass(run_dir, policy, tmp_path):
    extra = [{"type": "local_shell"}, {"type": "namespace", "name": "mcp__impasse", "tools": [
        {"type": "function", "name": "escalate_to_human", "parameters": {"type": "object", "properties": {}}}]}]
    with Relay(policy, run_dir, agent="codex") as relay:
        side = Codex(relay.socket_path, tmp_path, tools=CODEX_TOOLS + extra)
        assert side.turn() is True
    with Relay(policy, run_dir, agent="claude-code") as relay:
        side = ClaudeCode(relay.socket_path, tmp_path)
        body = side.body() | {"tools": side.body()["tools"] + [{"type": "tool_search_tool_regex_20251119",
                                                                "name": "tool_search"}]}
        assert request(relay.socket_path, "POST", "/v1/messages", body, CLAUDE_HEADERS)[0] == 200


def test_a_body_that_is_not_a_request_is_a_400_in_the_apis_shape(run_dir, policy):
    with Relay(policy, run_dir, agent="codex") as relay:
        broken = request(relay.socket_path, "POST", "/v1/responses", b"{not json", CODEX_HEADERS)
        shapeless = request(relay.socket_path, "POST", "/v1/responses", {"model": "m", "input": 3}, CODEX_HEADERS)
    assert broken[0] == shapeless[0] == 400
    assert json.loads(broken[2])["error"]["type"] == "invalid_request_error"
    assert "input" in json.loads(shapeless[2])["error"]["message"]


def test_count_tokens_is_answered_with_an_estimate_and_is_no_step(run_dir, policy, tmp_path):
    with Relay(policy, run_dir, agent="claude-code") as relay:
        body = ClaudeCode(relay.socket_path, tmp_path).body()
        status, _, data = request(relay.socket_path, "POST", "/v1/messages/count_tokens?beta=true", body,
                                  CLAUDE_HEADERS)
    assert status == 200 and json.loads(data)["input_tokens"] > 100
    assert relay.steps == 0 and policy.asked == 0


def test_a_retried_request_gets_the_same_reply_and_no_new_step(run_dir, policy, tmp_path):
    with Relay(policy, run_dir, agent="claude-code") as relay:
        side = ClaudeCode(relay.socket_path, tmp_path)
        first = request(relay.socket_path, "POST", "/v1/messages", side.body(), CLAUDE_HEADERS)
        again = request(relay.socket_path, "POST", "/v1/messages", side.body(), CLAUDE_HEADERS)
    assert claude_blocks(sse(first[2]))[0] == claude_blocks(sse(again[2]))[0]
    assert policy.asked == 1 and relay.steps == 1
    assert [entry["kind"] for entry in logged(run_dir)] == ["step", "retry"]


def test_a_request_without_stream_gets_the_whole_message_or_response(run_dir, policy, tmp_path):
    with Relay(policy, run_dir, agent="claude-code") as relay:
        body = ClaudeCode(relay.socket_path, tmp_path).body() | {"stream": False}
        status, headers, data = request(relay.socket_path, "POST", "/v1/messages", body, CLAUDE_HEADERS)
    message = json.loads(data)
    assert status == 200 and headers["content-type"] == "application/json"
    assert message["type"] == "message" and message["stop_reason"] == "tool_use"
    assert message["content"][-1]["name"] == "Bash" and set(message["usage"]) >= {"input_tokens", "output_tokens"}
    fresh = Counting("oracle", policy.playbook, seed=0)
    with Relay(fresh, run_dir, agent="codex") as relay:
        body = Codex(relay.socket_path, tmp_path).body() | {"stream": False}
        response = json.loads(request(relay.socket_path, "POST", "/v1/responses", body, CODEX_HEADERS)[2])
    assert response["object"] == "response" and response["output"][-1]["name"] == "exec_command"


def test_a_real_model_behind_codex_sees_its_tools_unchanged_and_its_mcp_call_gets_the_namespace(
        run_dir, endpoint, tmp_path):
    script, url = endpoint([openai_tool_call("mcp__impasse__escalate_to_human", '{"reason": "root owns it"}')])
    tools = CODEX_TOOLS + [{"type": "namespace", "name": "mcp__impasse", "description": "impasse", "tools": [
        {"type": "function", "name": "escalate_to_human", "description": "Hand over.",
         "parameters": {"type": "object", "properties": {"reason": {"type": "string"}}, "required": ["reason"]}}]}]
    with Relay(make_model("openai:gpt-x", base_url=url), run_dir, agent="codex") as relay:
        side = Codex(relay.socket_path, tmp_path, tools=tools)
        side.turn()
    upstream = script.requests[0]["body"]
    names = [tool["function"]["name"] for tool in upstream["tools"]]
    assert names == ["exec_command", "write_stdin", "apply_patch", "view_image", "tool_search",
                     "mcp__impasse__escalate_to_human"]
    assert upstream["messages"][0]["role"] == "system" and "You are Codex." in upstream["messages"][0]["content"]
    assert side.mcp_calls == [("escalate_to_human", {"reason": "root owns it"})]
    assert relay.ending.kind == Ending.ESCALATE_TO_HUMAN and relay.ending.message == "root owns it"


def test_an_impasse_mcp_call_gets_codexs_namespace_even_when_no_search_loaded_it(run_dir, endpoint, tmp_path):
    script, url = endpoint([openai_tool_call("mcp__impasse__task_complete", '{"summary": "fixed"}')])
    with Relay(make_model("openai:gpt-x", base_url=url), run_dir, agent="codex") as relay:
        side = Codex(relay.socket_path, tmp_path)
        side.turn()
    call = side.replies[0][0]
    assert (call["namespace"], call["name"]) == ("mcp__impasse", "task_complete")
    assert side.mcp_calls == [("task_complete", {"summary": "fixed"})] and relay.ending.kind == Ending.TASK_COMPLETE


def test_a_real_model_behind_codex_loads_the_deferred_mcp_tools_with_codexs_own_tool_search(
        run_dir, endpoint, tmp_path):
    script, url = endpoint([openai_tool_call("tool_search", '{"query": "escalate to a human"}'),
                            openai_tool_call("mcp__impasse__escalate_to_human", '{"reason": "no network"}')])
    with Relay(make_model("openai:gpt-x", base_url=url), run_dir, agent="codex") as relay:
        side = Codex(relay.socket_path, tmp_path)
        side.turn()
        side.turn()
    search = side.replies[0][0]
    assert search["type"] == "tool_search_call" and search["execution"] == "client"
    assert search["arguments"] == {"query": "escalate to a human"}
    offered = [[tool["function"]["name"] for tool in request["body"]["tools"]] for request in script.requests]
    assert "mcp__impasse__escalate_to_human" not in offered[0] and "mcp__impasse__escalate_to_human" in offered[1]
    assert "escalate_to_human" in script.requests[1]["body"]["messages"][-1]["content"]  # the search's answer
    assert side.mcp_calls == [("escalate_to_human", {"reason": "no network"})]
    assert relay.ending.kind == Ending.ESCALATE_TO_HUMAN


def test_a_real_model_behind_claude_code_gets_its_thinking_back_and_the_usage_goes_through(
        run_dir, endpoint, tmp_path):
    first = anthropic_tool_use("Bash", {"command": "echo hi"})
    first["content"].insert(0, {"type": "thinking", "thinking": "look first", "signature": "sig-1"})
    script, url = endpoint([first, {"id": "m2", "type": "message", "role": "assistant", "model": "x",
                                    "content": [{"type": "text", "text": "done"}], "stop_reason": "end_turn",
                                    "usage": {"input_tokens": 20, "output_tokens": 2}}])
    with Relay(make_model("anthropic:claude-x", base_url=url), run_dir, agent="claude-code") as relay:
        side = ClaudeCode(relay.socket_path, tmp_path)
        assert side.run() == 2
    assert side.replies[0][0] == {"type": "thinking", "thinking": "look first", "signature": "sig-1"}
    assert [tool["name"] for tool in script.requests[0]["body"]["tools"]][:2] == ["Bash", "Edit"]
    sent_back = script.requests[1]["body"]["messages"]
    assert any(block.get("signature") == "sig-1" for m in sent_back if m["role"] == "assistant"
               for block in m["content"])
    step = json.loads(run_dir.steps.read_text().splitlines()[0])
    assert step["tool_calls"][0]["name"] == "bash" and step["usage"]["prompt_tokens"] == 10
    assert step["observations"][0]["exit_code"] == 0 and step["observations"][0]["output"] == "hi\n"


def test_a_provider_that_refuses_ends_the_run_as_a_transport_error_and_the_agent_is_stopped(
        run_dir, endpoint, tmp_path):
    script, url = endpoint([401])
    with Relay(make_model("openai:gpt-x", base_url=url), run_dir, agent="codex") as relay:
        side = Codex(relay.socket_path, tmp_path)
        assert side.run() == 1
    assert relay.ending.kind == Ending.TRANSPORT_ERROR
    assert side.replies[0][0]["content"][0]["text"] == STOP


def test_a_failing_hook_between_steps_ends_the_run_as_a_harness_error(run_dir, policy, tmp_path):
    def hook(index):
        raise RuntimeError("sandbox gone")
    with Relay(policy, run_dir, agent="claude-code", between_steps=hook) as relay:
        ClaudeCode(relay.socket_path, tmp_path).run()
    assert relay.ending.kind == Ending.HARNESS_ERROR and "sandbox gone" in relay.ending.message
    assert policy.asked == 0


def test_responses_items_come_back_in_order_with_the_reply_usage(run_dir, endpoint, tmp_path):
    reply = openai_tool_call("exec_command", '{"cmd": "ls"}', text="Listing.")
    script, url = endpoint([reply])
    with Relay(make_model("openai:gpt-x", base_url=url), run_dir, agent="codex") as relay:
        side = Codex(relay.socket_path, tmp_path)
        status, _, data = request(relay.socket_path, "POST", "/v1/responses", side.body(), CODEX_HEADERS)
    items, usage = responses_items(sse(data))
    assert [item["type"] for item in items] == ["message", "function_call"]
    assert usage["input_tokens"] == 10 and usage["output_tokens"] == 5 and usage["total_tokens"] == 15


class Slow(Counting):
    """The oracle, slower than the agent waits on its first answer."""

    def complete(self, messages, tools):
        if self.asked == 0:
            time.sleep(0.6)
        return super().complete(messages, tools)


def test_a_retry_sent_while_the_model_is_still_answering_gets_that_answer_and_no_second_step(run_dir, tmp_path):
    slow = Slow("oracle", Playbook((Edit("calc.py", "a\n", "b\n"),), "true", False), seed=0)
    with Relay(slow, run_dir, agent="claude-code") as relay:
        body = json.dumps(ClaudeCode(relay.socket_path, tmp_path).body()).encode()
        impatient = UnixConnection(relay.socket_path)
        impatient.timeout = 0.2
        impatient.request("POST", "/v1/messages", body=body, headers=CLAUDE_HEADERS)
        with pytest.raises(TimeoutError):
            impatient.getresponse()
        impatient.close()
        status, _, data = request(relay.socket_path, "POST", "/v1/messages", body, CLAUDE_HEADERS)
    assert status == 200 and claude_blocks(sse(data))[0][-1]["name"] == "Bash"
    assert slow.asked == 1 and relay.steps == 1
    assert sorted(entry["kind"] for entry in logged(run_dir)) == ["retry", "step"]
