"""The Gemini API wire, as Gemini CLI 0.61.0 speaks it (through `@google/genai` 1.30.0):
`POST /v1beta/models/{model}:streamGenerateContent?alt=sse` for its turns and
`POST /v1beta/models/{model}:generateContent` for its utility calls. The model and whether the reply
streams are in the path, not the body, so `read_request` takes both. The body's `contents` (roles
user and model; parts `text`, `functionCall {id, name, args}`, `functionResponse {id, name,
response}`), `systemInstruction` and `tools[].functionDeclarations` are read into an `Exchange`; the
reply is one `GenerateContentResponse`, or its parts as SSE chunks (`data: <json>` and a blank line,
no `event:` line: the SDK's reader matches nothing else), the last chunk carrying `finishReason`
and `usageMetadata`.

Call ids: the CLI keeps the id a `functionCall` came with and sends it back on its
`functionResponse`. A history without ids (the real Gemini API gives none) is joined by name and
order to the model turn before it, as that API does; the calls get ids from their place. The
model's thought parts and the CLI's `thoughtSignature` are read as nothing, and a reply carries none
(the CLI strips thoughts from its history; no model behind the relay reads Gemini's signatures).

Refused: every tool that is not `functionDeclarations` (`googleSearch`, `googleSearchRetrieval`,
`codeExecution`, `urlContext`, `computerUse`, `fileSearch`, `googleMaps`, `retrieval`, …: the
provider runs them outside the container) and `cachedContent` (part of the conversation kept at the
provider, which the relay never sees). `:streamGenerateContent` without `alt=sse` (a JSON array the
CLI never asks for) is a 400. Errors are Google's: {"error": {"code", "message", "status"}}."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator

from impasse.agents.agent_calls import AgentCall, Offered, ToolResult
from impasse.agents.exchange import Exchange, Reply, Turn, WireError, function_tool

PATH = re.compile(r"^/v1(?:beta|alpha)?/models/(?P<model>[^/:]+):(?P<method>streamGenerateContent|generateContent)$")
REFUSED_KEYS = ("cachedContent",)
SCHEMA_TYPES = ("STRING", "NUMBER", "INTEGER", "BOOLEAN", "ARRAY", "OBJECT", "NULL")
STATUSES = {"invalid_request_error": (400, "INVALID_ARGUMENT"), "not_found": (404, "NOT_FOUND"),
            "not_found_error": (404, "NOT_FOUND"), "rate_limit_error": (429, "RESOURCE_EXHAUSTED"),
            "server_error": (500, "INTERNAL"), "api_error": (500, "INTERNAL")}


def serves(path: str) -> bool:
    """A path (its query left off) this wire answers."""
    return PATH.match(path) is not None


def model_of_path(path: str) -> str:
    found = PATH.match(path.split("?", 1)[0].rstrip("/"))
    return found.group("model") if found else ""


def streams(path: str) -> bool:
    """`:streamGenerateContent` streams; only as SSE (`alt=sse`), the one way the CLI asks."""
    route, _, query = path.partition("?")
    if not route.rstrip("/").endswith(":streamGenerateContent"):
        return False
    if "alt=sse" not in query.split("&"):
        raise WireError("streamGenerateContent: the relay streams only as server-sent events; add ?alt=sse")
    return True


def refused_tools(body: dict) -> list[str]:
    refused = [key for key in REFUSED_KEYS if body.get(key)]
    for tool in body.get("tools") or []:
        refused += [str(key) for key in (tool if isinstance(tool, dict) else {}) if key != "functionDeclarations"]
    return refused


def read_request(body: dict, path: str) -> Exchange:
    """A request's body, with the path it came on (`?alt=sse` kept: it says how to stream)."""
    contents = body.get("contents")
    if not isinstance(contents, list) or not contents:
        raise WireError("contents: field required (a non-empty list of {role, parts})")
    system = body.get("systemInstruction")
    turns = [Turn("system", text_of_parts(system))] if system else []
    turns += read_contents(contents)
    tools, offered = read_tools(body.get("tools"))
    return Exchange("gemini", model_of_path(path), streams(path), turns, tools, offered, refused_tools(body))


def parts_of(content, where: str) -> list[dict]:
    parts = content.get("parts") if isinstance(content, dict) else None
    if not isinstance(parts, list) or not all(isinstance(part, dict) for part in parts):
        raise WireError(f"{where}: each content is {{role, parts}} with parts a list of objects")
    return parts


def text_of_parts(content) -> str:
    """A systemInstruction: a string, or a content whose text parts are joined."""
    if isinstance(content, str):
        return content
    return "\n".join(str(part["text"]) for part in parts_of(content, "systemInstruction") if "text" in part)


def read_contents(contents: list) -> list[Turn]:
    turns: list[Turn] = []
    unanswered: list[AgentCall] = []  # the last model turn's calls no result has named yet
    for index, content in enumerate(contents):
        parts = parts_of(content, f"contents[{index}]")
        if content.get("role") == "model":
            turns.append(model_turn(parts, index))
            unanswered = list(turns[-1].calls)
        else:
            turns += user_turns(parts, unanswered)
    return turns


def model_turn(parts: list[dict], index: int) -> Turn:
    turn = Turn("assistant")
    for number, part in enumerate(parts):
        if part.get("thought"):
            continue  # the model's thoughts: the CLI strips them from its history; nothing to carry
        if "functionCall" in part:
            call = part["functionCall"] if isinstance(part["functionCall"], dict) else {}
            name, args = str(call.get("name", "")), call.get("args")
            turn.calls.append(AgentCall(str(call.get("id") or f"{name}_{index}_{number}"), name,
                                        args if isinstance(args, dict) else {}))
        elif "text" in part:
            turn.text += str(part["text"])  # the text parts of a turn are pieces of one streamed text
    return turn


def user_turns(parts: list[dict], unanswered: list[AgentCall]) -> list[Turn]:
    results = [result_of(part["functionResponse"], unanswered) for part in parts if "functionResponse" in part]
    text = "\n".join(str(part["text"]) for part in parts if "text" in part and not part.get("thought"))
    return ([Turn("results", results=results)] if results else []) + ([Turn("user", text)] if text else [])


def result_of(response: dict, unanswered: list[AgentCall]) -> ToolResult:
    """A functionResponse, joined to its call by id, else to the first unanswered call of its name."""
    response = response if isinstance(response, dict) else {}
    call_id, name = response.get("id"), str(response.get("name", ""))
    match = next((c for c in unanswered if (c.id == call_id if call_id else c.name == name)), None)
    if match is not None:
        unanswered.remove(match)
    body = response.get("response")
    body = body if isinstance(body, dict) else {"output": body}
    return ToolResult(str(call_id or (match.id if match else f"{name}_unmatched")), output_of(body), "error" in body)


def output_of(response: dict) -> str:
    """The CLI's `{output}` or `{error}`; any other response as its JSON ({} as nothing)."""
    for key in ("output", "error"):
        if isinstance(response.get(key), str):
            return response[key]
    return json.dumps(response) if response else ""


def read_tools(wire_tools) -> tuple[list[dict], Offered]:
    if wire_tools is not None and not isinstance(wire_tools, list):
        raise WireError("tools: a list of {functionDeclarations: [...]}")
    tools, offered = [], Offered()
    for tool in wire_tools or []:
        for declaration in (tool.get("functionDeclarations") or []) if isinstance(tool, dict) else []:
            if isinstance(declaration, dict) and declaration.get("name"):
                name = str(declaration["name"])
                offered.names.add(name)
                schema = declaration.get("parametersJsonSchema") or json_schema(declaration.get("parameters"))
                tools.append(function_tool(name, declaration.get("description", ""), schema))
    return tools, offered


def json_schema(schema):
    """A `parameters` schema (Google's OpenAPI subset: types in capitals) as JSON Schema."""
    if isinstance(schema, list):
        return [json_schema(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    found = {key: json_schema(value) for key, value in schema.items()}
    if isinstance(found.get("type"), str) and found["type"].upper() in SCHEMA_TYPES:
        found["type"] = found["type"].lower()
    return found


def parts_of_reply(reply: Reply) -> list[dict]:
    parts = [{"text": reply.text}] if reply.text else []
    parts += [{"functionCall": {"id": call.id, "name": call.name, "args": call.arguments or {}}}
              for call in reply.calls]
    return parts or [{"text": ""}]


def wire_usage(usage: dict) -> dict:
    """impasse's usage keys in Gemini's: candidates leave out the thoughts, which the total counts."""
    prompt, completion = usage.get("prompt_tokens") or 0, usage.get("completion_tokens") or 0
    thoughts, cached = usage.get("reasoning_tokens") or 0, usage.get("cached_tokens") or 0
    found = {"promptTokenCount": prompt, "candidatesTokenCount": max(completion - thoughts, 0),
             "totalTokenCount": prompt + completion}
    return found | ({"thoughtsTokenCount": thoughts} if thoughts else {}) | (
        {"cachedContentTokenCount": cached} if cached else {})


def response(parts: list[dict], model: str, usage: dict | None, done: bool = True) -> dict:
    candidate = {"content": {"role": "model", "parts": parts}, "index": 0}
    whole = {"candidates": [candidate | ({"finishReason": "STOP"} if done else {})], "modelVersion": model}
    return whole | ({"usageMetadata": usage} if usage is not None else {})


def reply_body(reply: Reply, model: str) -> dict:
    return response(parts_of_reply(reply), model, wire_usage(reply.usage))


def events(reply: Reply, model: str) -> Iterator[tuple[str, dict]]:
    """One chunk per part, the last with finishReason and usage. No event name: the SSE carries
    only `data:` lines (relay_http leaves the `event:` line out for an empty name)."""
    parts = parts_of_reply(reply)
    for number, part in enumerate(parts):
        last = number == len(parts) - 1
        yield "", response([part], model, wire_usage(reply.usage) if last else None, done=last)


def error(kind: str, text: str) -> dict:
    """Google's error body: 400 INVALID_ARGUMENT, 404 NOT_FOUND, 429 RESOURCE_EXHAUSTED, 500 INTERNAL."""
    code, status = STATUSES.get(kind, (400, "INVALID_ARGUMENT"))
    return {"error": {"code": code, "message": text, "status": status}}
