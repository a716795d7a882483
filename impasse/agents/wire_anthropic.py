"""The Anthropic Messages wire (`POST /v1/messages`), as Claude Code 2.1.332 speaks it: the request
read into an `Exchange`, the reply written as a `message` object or as its SSE events in order
(message_start, per block content_block_start / _delta / _stop, message_delta, message_stop).

Claude Code puts `role: system` entries inside `messages`, `cache_control` on tool results and
`<system-reminder>` text in user turns; all are read as they come."""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator

from impasse.agents.agent_calls import AgentCall, Offered, ToolResult
from impasse.agents.exchange import Exchange, Reply, Turn, WireError, function_tool, text_of

# A tool is the agent's own (carried out by the agent, in the container) when it has no `type` or
# `type: custom`. Every typed tool is Anthropic-defined; these are refused because the provider
# runs them outside the container (web search/fetch, code execution, a remote MCP toolset) or
# because they are schema-less built-ins Claude Code never sends (computer, bash, text editor,
# memory), so a request naming one is not Claude Code's. Tool search over the request's own
# deferred tools reaches nothing outside and is let through.
REFUSED_TOOL_TYPES = ("web_search_", "web_fetch_", "code_execution_", "computer_", "bash_", "text_editor_",
                      "memory_", "mcp_toolset", "container_")
ALLOWED_TOOL_TYPES = ("custom", "tool_search_tool_")
REFUSED_KEYS = ("mcp_servers", "container")  # the MCP connector and a provider-side container


def refused_tools(body: dict) -> list[str]:
    refused = [key for key in REFUSED_KEYS if body.get(key)]
    for tool in body.get("tools") or []:
        kind = tool.get("type")
        if kind is None or any(str(kind).startswith(prefix) for prefix in ALLOWED_TOOL_TYPES):
            continue
        refused.append(f"{kind} ({tool.get('name', '')})")
    return refused


def read_request(body: dict, path: str = "") -> Exchange:  # the path says nothing this wire needs
    if not isinstance(body.get("messages"), list):
        raise WireError("messages: field required (a list)")
    turns = [Turn("system", text_of(body["system"]))] if body.get("system") else []
    for message in body["messages"]:
        turns += read_message(message)
    tools, offered = [], Offered()
    for tool in body.get("tools") or []:
        if "name" in tool and tool.get("type") in (None, "custom"):
            tools.append(function_tool(tool["name"], tool.get("description", ""), tool.get("input_schema")))
            offered.names.add(tool["name"])
    return Exchange("anthropic", str(body.get("model", "")), bool(body.get("stream")), turns, tools, offered,
                    refused_tools(body))


def read_message(message: dict) -> list[Turn]:
    role, content = message.get("role"), message.get("content")
    if role == "system":
        return [Turn("system", text_of(content))]
    blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content or []
    if role == "assistant":
        turn = Turn("assistant")
        for block in blocks:
            kind = block.get("type")
            if kind == "text":
                turn.text = f"{turn.text}\n{block['text']}" if turn.text else block["text"]
            elif kind == "tool_use":
                turn.calls.append(AgentCall(str(block.get("id")), str(block.get("name")), block.get("input") or {}))
            elif kind in ("thinking", "redacted_thinking"):
                turn.carry.append(block)
        return [turn]
    results = [ToolResult(str(b.get("tool_use_id")), text_of(b.get("content")), bool(b.get("is_error")))
               for b in blocks if b.get("type") == "tool_result"]
    text = "\n".join(str(b.get("text", "")) for b in blocks if b.get("type") == "text")
    turns = [Turn("results", results=results)] if results else []
    return turns + ([Turn("user", text)] if text else [])


def blocks_of(reply: Reply) -> list[dict]:
    blocks = [b for b in reply.carry if isinstance(b, dict) and b.get("type") in ("thinking", "redacted_thinking")]
    if reply.text:
        blocks.append({"type": "text", "text": reply.text})
    blocks += [{"type": "tool_use", "id": c.id, "name": c.name, "input": c.arguments or {}} for c in reply.calls]
    return blocks or [{"type": "text", "text": ""}]


def wire_usage(usage: dict) -> dict:
    """impasse's usage keys (prompt_tokens is the whole input) in Anthropic's (input_tokens excludes
    what was read from or written to the cache)."""
    cached, written = usage.get("cached_tokens") or 0, usage.get("cache_write_tokens") or 0
    return {"input_tokens": max((usage.get("prompt_tokens") or 0) - cached - written, 0),
            "cache_creation_input_tokens": written, "cache_read_input_tokens": cached,
            "output_tokens": usage.get("completion_tokens") or 0}


def reply_body(reply: Reply, model: str) -> dict:
    return {"id": f"msg_{uuid.uuid4().hex[:24]}", "type": "message", "role": "assistant", "model": model,
            "content": blocks_of(reply), "stop_reason": "tool_use" if reply.calls else "end_turn",
            "stop_sequence": None, "usage": wire_usage(reply.usage)}


def events(reply: Reply, model: str) -> Iterator[tuple[str, dict]]:
    whole = reply_body(reply, model)
    yield "message_start", {"type": "message_start", "message": whole | {
        "content": [], "stop_reason": None, "usage": whole["usage"] | {"output_tokens": 0}}}
    for index, block in enumerate(whole["content"]):
        yield "content_block_start", {"type": "content_block_start", "index": index, "content_block": opening(block)}
        for delta in deltas(block):
            yield "content_block_delta", {"type": "content_block_delta", "index": index, "delta": delta}
        yield "content_block_stop", {"type": "content_block_stop", "index": index}
    yield "message_delta", {"type": "message_delta", "delta": {"stop_reason": whole["stop_reason"],
                                                               "stop_sequence": None},
                            "usage": {"output_tokens": whole["usage"]["output_tokens"]}}
    yield "message_stop", {"type": "message_stop"}


def opening(block: dict) -> dict:
    kind = block["type"]
    if kind == "text":
        return {"type": "text", "text": ""}
    if kind == "tool_use":
        return block | {"input": {}}
    if kind == "thinking":
        return {"type": "thinking", "thinking": "", "signature": ""}
    return block  # redacted_thinking arrives whole


def deltas(block: dict) -> list[dict]:
    kind = block["type"]
    if kind == "text":
        return [{"type": "text_delta", "text": block["text"]}] if block["text"] else []
    if kind == "tool_use":
        return [{"type": "input_json_delta", "partial_json": json.dumps(block["input"])}]
    if kind == "thinking":
        return [{"type": "thinking_delta", "thinking": block.get("thinking", "")},
                {"type": "signature_delta", "signature": block.get("signature", "")}]
    return []


def error(kind: str, text: str) -> dict:
    """Anthropic's error body: `invalid_request_error` (400), `not_found_error` (404), `api_error` (500)."""
    return {"type": "error", "error": {"type": kind, "message": text}}


def count_tokens(body: dict) -> dict:
    """An estimate (four characters a token), enough for Claude Code's context bookkeeping."""
    size = len(json.dumps([body.get("system"), body.get("messages"), body.get("tools")]))
    return {"input_tokens": max(size // 4, 1)}
