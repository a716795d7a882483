"""The OpenAI Responses wire (`POST /v1/responses`), as Codex CLI 0.171.0 speaks it: the whole
history in `input` on every turn (`store: false`), read into an `Exchange`; the reply written as a
`response` object or as its SSE events in order (response.created, response.in_progress, per item
output_item.added, its deltas and their done events, output_item.done, then response.completed
with `usage`).

Codex offers its MCP tools as a `namespace` group (`mcp__impasse`) and expects the call to carry
the namespace; apply_patch is a freeform `custom` tool whose input is the patch itself."""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Iterator

from impasse.agents.agent_calls import AgentCall, Offered, ToolResult
from impasse.agents.exchange import Exchange, Reply, Turn, WireError, function_tool, text_of
from impasse.vocabulary import TERMINAL_ARGUMENT

# Tools the agent carries out itself, in the container: let through. Every other type runs at the
# provider, outside the container (web_search, web_search_preview, file_search, code_interpreter,
# computer_use_preview, image_generation, a remote `mcp` server, a server-side tool_search), and
# is refused, as is any type this list does not know yet.
# impasse's MCP server as Codex offers its tools: a `namespace` group (codex.yaml's mcp.tool_prefix without its `__`)
MCP_NAMESPACE = "mcp__impasse"
CLIENT_TOOL_TYPES = ("function", "custom", "namespace", "local_shell", "shell", "apply_patch")
CALL_TYPES = ("function_call", "custom_tool_call")
OUTPUT_TYPES = ("function_call_output", "custom_tool_call_output")
FREEFORM_PARAMETERS = {"type": "object", "required": ["input"],
                       "properties": {"input": {"type": "string", "description": "The tool's whole input."}}}


def refused_tools(body: dict) -> list[str]:
    refused = []
    for tool in body.get("tools") or []:
        kind = tool.get("type")
        client_search = kind == "tool_search" and tool.get("execution") == "client"
        if kind not in CLIENT_TOOL_TYPES and not client_search:
            refused.append(str(kind))
        elif kind == "namespace":
            refused += [f"{sub.get('type')} (in {tool.get('name')})" for sub in tool.get("tools") or []
                        if sub.get("type") not in ("function", "custom")]
    return refused


def read_request(body: dict, path: str = "") -> Exchange:  # the path says nothing this wire needs
    items = body.get("input")
    if isinstance(items, str):
        items = [{"type": "message", "role": "user", "content": items}]
    if not isinstance(items, list):
        raise WireError("input: field required (a string or a list of items)")
    turns = [Turn("system", str(body["instructions"]))] if body.get("instructions") else []
    for item in items:
        read_item(item, turns)
    # Tools a client-side search loaded (Codex defers its MCP tools behind tool_search) are offered from then on.
    loaded = [tool for item in items if isinstance(item, dict) and item.get("type") == "tool_search_output"
              for tool in item.get("tools") or []]
    tools, offered = read_tools((body.get("tools") or []) + loaded)
    for name in TERMINAL_ARGUMENT:  # impasse's own MCP server is always there, searched for or not
        offered.namespaced.setdefault(f"{MCP_NAMESPACE}__{name}", (MCP_NAMESPACE, str(name)))
    return Exchange("responses", str(body.get("model", "")), bool(body.get("stream")), turns, tools, offered,
                    refused_tools(body))


def assistant(turns: list[Turn]) -> Turn:
    """Consecutive model items (text, calls, reasoning) are one assistant turn."""
    if not turns or turns[-1].role != "assistant":
        turns.append(Turn("assistant"))
    return turns[-1]


def read_item(item: dict, turns: list[Turn]) -> None:
    kind = item.get("type", "message")
    if kind == "message":
        role, text = item.get("role"), text_of(item.get("content"))
        if role == "assistant":
            turn = assistant(turns)
            turn.text = f"{turn.text}\n{text}" if turn.text else text
        else:
            turns.append(Turn("system" if role in ("developer", "system") else "user", text))
    elif kind == "reasoning":
        assistant(turns).carry.append(item)
    elif kind == "function_call":
        try:
            arguments = json.loads(item.get("arguments") or "{}")
        except json.JSONDecodeError:
            arguments = None
        assistant(turns).calls.append(AgentCall(str(item.get("call_id")), str(item.get("name")), arguments,
                                                namespace=item.get("namespace")))
    elif kind == "custom_tool_call":
        assistant(turns).calls.append(AgentCall(str(item.get("call_id")), str(item.get("name")),
                                                text=str(item.get("input", ""))))
    elif kind == "tool_search_call":
        assistant(turns).calls.append(AgentCall(str(item.get("call_id")), "tool_search", item.get("arguments") or {},
                                                search=True))
    elif kind in OUTPUT_TYPES or kind == "tool_search_output":
        if not turns or turns[-1].role != "results":
            turns.append(Turn("results"))
        output = json.dumps(item.get("tools")) if kind == "tool_search_output" else text_of(item.get("output"))
        turns[-1].results.append(ToolResult(str(item.get("call_id")), output))


def read_tools(wire_tools: list[dict]) -> tuple[list[dict], Offered]:
    tools, offered = [], Offered()
    for tool in wire_tools:
        kind = tool.get("type")
        if kind == "namespace":
            for sub in tool.get("tools") or []:
                flat = f"{tool.get('name')}__{sub.get('name')}"
                offered.namespaced[flat] = (str(tool.get("name")), str(sub.get("name")))
                tools.append(function_tool(flat, sub.get("description", ""), sub.get("parameters")))
        elif kind in ("function", "custom") or kind == "tool_search":
            name = str(tool.get("name") or kind)
            offered.names.add(name)
            if kind == "custom":
                offered.custom.add(name)
            if kind == "tool_search":
                offered.search.add(name)
            tools.append(function_tool(name, tool.get("description", ""),
                                       FREEFORM_PARAMETERS if kind == "custom" else tool.get("parameters")))
    return tools, offered


def item_id(prefix: str) -> str:
    return f"{prefix}_{uuid.uuid4().hex[:24]}"


def output_items(reply: Reply) -> list[dict]:
    items = [dict(b) for b in reply.carry if isinstance(b, dict) and b.get("type") == "reasoning"]
    if reply.text or not reply.calls:
        items.append({"type": "message", "id": item_id("msg"), "role": "assistant", "status": "completed",
                      "content": [{"type": "output_text", "text": reply.text, "annotations": []}]})
    for call in reply.calls:
        if call.search:
            items.append({"type": "tool_search_call", "id": item_id("ts"), "call_id": call.id, "execution": "client",
                          "arguments": call.arguments or {}, "status": "completed"})
            continue
        if call.freeform:
            items.append({"type": "custom_tool_call", "id": item_id("ctc"), "call_id": call.id, "name": call.name,
                          "input": call.text, "status": "completed"})
            continue
        item = {"type": "function_call", "id": item_id("fc"), "call_id": call.id, "name": call.name,
                "arguments": call.raw, "status": "completed"}
        items.append(item | ({"namespace": call.namespace} if call.namespace else {}))
    return items


def wire_usage(usage: dict) -> dict:
    prompt, completion = usage.get("prompt_tokens") or 0, usage.get("completion_tokens") or 0
    return {"input_tokens": prompt, "input_tokens_details": {"cached_tokens": usage.get("cached_tokens") or 0},
            "output_tokens": completion,
            "output_tokens_details": {"reasoning_tokens": usage.get("reasoning_tokens") or 0},
            "total_tokens": prompt + completion}


def reply_body(reply: Reply, model: str) -> dict:
    return {"id": item_id("resp"), "object": "response", "created_at": int(time.time()), "model": model,
            "status": "completed", "output": output_items(reply), "usage": wire_usage(reply.usage)}


def events(reply: Reply, model: str) -> Iterator[tuple[str, dict]]:
    whole = reply_body(reply, model)
    pending = whole | {"status": "in_progress", "output": [], "usage": None}
    stream = [("response.created", {"response": pending}), ("response.in_progress", {"response": pending})]
    for index, item in enumerate(whole["output"]):
        stream.append(("response.output_item.added", {"output_index": index, "item": opening(item)}))
        stream += [(kind, data | {"output_index": index, "item_id": item["id"]}) for kind, data in deltas(item)]
        stream.append(("response.output_item.done", {"output_index": index, "item": item}))
    stream.append(("response.completed", {"response": whole}))
    for number, (kind, data) in enumerate(stream):
        yield kind, {"type": kind, "sequence_number": number} | data


def opening(item: dict) -> dict:
    empty = {"message": {"content": []}, "function_call": {"arguments": ""}, "custom_tool_call": {"input": ""}}
    return item | empty.get(item["type"], {}) | {"status": "in_progress"}


def deltas(item: dict) -> list[tuple[str, dict]]:
    kind = item["type"]
    if kind == "message":
        part, text = item["content"][0], item["content"][0]["text"]
        at = {"content_index": 0}
        return [("response.content_part.added", at | {"part": part | {"text": ""}}),
                ("response.output_text.delta", at | {"delta": text}),
                ("response.output_text.done", at | {"text": text}),
                ("response.content_part.done", at | {"part": part})]
    if kind == "function_call":
        return [("response.function_call_arguments.delta", {"delta": item["arguments"]}),
                ("response.function_call_arguments.done", {"arguments": item["arguments"]})]
    if kind == "custom_tool_call":
        return [("response.custom_tool_call_input.delta", {"delta": item["input"]}),
                ("response.custom_tool_call_input.done", {"input": item["input"]})]
    return []


def error(kind: str, text: str, param: str | None = None) -> dict:
    """The OpenAI error body: {"error": {"message", "type", "param", "code"}}."""
    return {"error": {"message": text, "type": kind, "param": param, "code": None}}
