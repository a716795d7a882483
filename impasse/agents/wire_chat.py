"""The OpenAI Chat Completions wire (`POST /v1/chat/completions`), as mini-swe-agent 2.4.6 speaks
it through litellm and as the OpenAI SDKs of other agents speak it: the whole conversation in
`messages` on every call (system, user, assistant with `tool_calls`, `tool` results by
`tool_call_id`, a result's content a string or an array of text parts). The reply is a
`chat.completion` object, or with `stream: true` its `chat.completion.chunk`s as server-sent events
ending in `[DONE]` (the usage in a last chunk where `stream_options.include_usage` asks for it).

Refused: the provider-side tools Chat Completions has — `web_search_options` (the search models'
web search) and any tool whose type is not `function`."""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Iterator

from impasse.agents.agent_calls import AgentCall, Offered, ToolResult
from impasse.agents.exchange import Exchange, Reply, Turn, WireError, function_tool, text_of
from impasse.agents.wire_responses import error  # the same OpenAI error body

__all__ = ["error", "events", "read_request", "reply_body"]


def refused_tools(body: dict) -> list[str]:
    refused = ["web_search_options"] if body.get("web_search_options") is not None else []
    return refused + [str(tool.get("type")) for tool in body.get("tools") or [] if tool.get("type") != "function"]


def read_request(body: dict, path: str = "") -> Exchange:  # the path says nothing this wire needs
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages:
        raise WireError("messages: field required (a non-empty list)")
    turns: list[Turn] = []
    for message in messages:
        if not isinstance(message, dict):
            raise WireError("messages: each message is an object")
        read_message(message, turns)
    tools, offered = read_tools(body.get("tools") or [])
    usage = bool((body.get("stream_options") or {}).get("include_usage"))
    return Exchange("chat", str(body.get("model", "")), bool(body.get("stream")), turns, tools, offered,
                    refused_tools(body), usage_chunk=usage)


def read_message(message: dict, turns: list[Turn]) -> None:
    role = message.get("role")
    if role == "assistant":
        calls = [call_of(call) for call in message.get("tool_calls") or []]
        turns.append(Turn("assistant", text_of(message.get("content")), calls))
    elif role == "tool":
        if not turns or turns[-1].role != "results":
            turns.append(Turn("results"))
        turns[-1].results.append(ToolResult(str(message.get("tool_call_id")), text_of(message.get("content"))))
    else:
        turns.append(Turn("system" if role in ("system", "developer") else "user", text_of(message.get("content"))))


def call_of(call: dict) -> AgentCall:
    function = call.get("function") or {}
    try:
        arguments = json.loads(function.get("arguments") or "{}")
    except json.JSONDecodeError:
        arguments = None
    return AgentCall(str(call.get("id")), str(function.get("name")), arguments if isinstance(arguments, dict) else None)


def read_tools(wire_tools: list[dict]) -> tuple[list[dict], Offered]:
    tools, offered = [], Offered()
    for tool in wire_tools:
        function = tool.get("function") or {}
        if tool.get("type") == "function" and function.get("name"):
            offered.names.add(str(function["name"]))
            tools.append(function_tool(str(function["name"]), function.get("description", ""),
                                       function.get("parameters")))
    return tools, offered


def reply_body(reply: Reply, model: str) -> dict:
    message: dict = {"role": "assistant", "content": reply.text or None}
    if reply.calls:
        message["tool_calls"] = [{"id": call.id, "type": "function",
                                  "function": {"name": call.name, "arguments": call.raw}} for call in reply.calls]
    prompt, completion = reply.usage.get("prompt_tokens") or 0, reply.usage.get("completion_tokens") or 0
    return {"id": f"chatcmpl-{uuid.uuid4().hex[:24]}", "object": "chat.completion", "created": int(time.time()),
            "model": model, "choices": [{"index": 0, "message": message,
                                         "finish_reason": "tool_calls" if reply.calls else "stop"}],
            "usage": {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion}}


def events(reply: Reply, model: str, usage: bool = False) -> Iterator[tuple[None, dict | str]]:
    """The reply as chunks: the role and text, each tool call whole at its index, the finish reason,
    the usage where asked for, then `[DONE]` (no event names: the SDKs read `data:` lines only)."""
    whole = reply_body(reply, model)
    message, head = whole["choices"][0]["message"], {k: whole[k] for k in ("id", "created", "model")}
    chunk = head | {"object": "chat.completion.chunk"}

    def choice(delta: dict, finish: str | None = None) -> dict:
        return chunk | {"choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}

    yield None, choice({"role": "assistant", "content": message["content"] or ""})
    for index, call in enumerate(message.get("tool_calls") or []):
        yield None, choice({"tool_calls": [{"index": index} | call]})
    yield None, choice({}, whole["choices"][0]["finish_reason"])
    if usage:
        yield None, chunk | {"choices": [], "usage": whole["usage"]}
    yield None, "[DONE]"
