"""The rules a conversation must keep, as the real APIs check them: every tool call answered in the
next turn and every answer to a call that was made, a tools list that is not empty, at most four
cache breakpoints, the Responses API's encrypted reasoning handed back as it was; and Anthropic's
extended thinking (signed blocks back unchanged, the last turn of a tool loop starting with one,
temperature left at 1). An adapter that breaks one meets the 400 it would meet in production."""

from __future__ import annotations

from tests.fakes import wire
from tests.fakes.replies import sign

MAX_BREAKPOINTS = 4


def chat_refused(body: dict) -> tuple[int, dict] | None:
    if "tools" in body and body["tools"] == []:
        return 400, wire.openai_error("Invalid 'tools': empty array. Expected an array with minimum length 1, but "
                                      "got an empty array instead.", param="tools", code="empty_array")
    messages = body.get("messages", [])
    for index, message in enumerate(messages):
        if message.get("role") == "tool" and not answers_a_call(messages, index):
            return 400, wire.openai_error("Invalid parameter: messages with role 'tool' must be a response to a "
                                          "preceeding message with 'tool_calls'.", param=f"messages.[{index}].role")
        asked = [c["id"] for c in message.get("tool_calls") or []]
        answered = {m.get("tool_call_id") for m in following_tools(messages, index)}
        missing = [i for i in asked if i not in answered]
        if missing and index + 1 < len(messages):
            return 400, wire.openai_error("An assistant message with 'tool_calls' must be followed by tool messages "
                                          "responding to each 'tool_call_id'. The following tool_call_ids did not "
                                          f"have response messages: {', '.join(missing)}", param="messages")
    return None


def response_input_refused(body: dict, issued: set[str]) -> tuple[int, dict] | None:
    """The Responses API's input: a function call's output answers a call made in it, and a
    reasoning item's encrypted content is one this server handed out, unchanged."""
    items = body.get("input")
    items = items if isinstance(items, list) else []
    calls = {item.get("call_id") for item in items if item.get("type") == "function_call"}
    for item in items:
        if item.get("type") == "function_call_output" and item.get("call_id") not in calls:
            return 400, wire.openai_error("No tool call found for function call output with call_id "
                                          f"{item.get('call_id')}.", param="input")
        sealed = item.get("encrypted_content") if item.get("type") == "reasoning" else None
        if sealed is not None and sealed not in issued:
            return 400, wire.openai_error(f"The encrypted content {sealed[:4]}...{sealed[-4:]} could not be "
                                          "verified.", code="invalid_encrypted_content")
    return None


def following_tools(messages: list[dict], index: int) -> list[dict]:
    run = []
    for message in messages[index + 1:]:
        if message.get("role") != "tool":
            break
        run.append(message)
    return run


def answers_a_call(messages: list[dict], index: int) -> bool:
    """A tool message belongs to the run of tool messages right after an assistant turn that made the call."""
    start = index
    while start > 0 and messages[start - 1].get("role") == "tool":
        start -= 1
    if start == 0 or messages[start - 1].get("role") != "assistant":
        return False
    made = {c["id"] for c in messages[start - 1].get("tool_calls") or []}
    return messages[index].get("tool_call_id") in made


def blocks(message: dict) -> list[dict]:
    content = message["content"]
    return [{"type": "text", "text": content}] if isinstance(content, str) else content


def anthropic_refused(body: dict) -> tuple[int, dict] | None:
    system = body.get("system")
    marked = [b for b in (body.get("tools") or []) + (system if isinstance(system, list) else [])
              if "cache_control" in b]
    marked += [b for m in body.get("messages", []) for b in blocks(m) if "cache_control" in b]
    if len(marked) > MAX_BREAKPOINTS:
        return 400, wire.anthropic_error("invalid_request_error", f"A maximum of {MAX_BREAKPOINTS} blocks with "
                                         f"cache_control may be provided. Found {len(marked)}.")
    messages = body.get("messages", [])
    for index, message in enumerate(messages):
        uses = [b["id"] for b in blocks(message) if b.get("type") == "tool_use"]
        after = blocks(messages[index + 1]) if index + 1 < len(messages) else None
        if uses and after is not None and not {b.get("tool_use_id") for b in after} >= set(uses):
            return 400, wire.anthropic_error("invalid_request_error", f"messages.{index}: `tool_use` ids were found "
                                             f"without `tool_result` blocks immediately after: {', '.join(uses)}. "
                                             "Each `tool_use` block must have a corresponding `tool_result` block "
                                             "in the next message.")
        before = blocks(messages[index - 1]) if index else []
        made = {b.get("id") for b in before if b.get("type") == "tool_use"}
        for number, block in enumerate(blocks(message)):
            if block.get("type") == "tool_result" and block.get("tool_use_id") not in made:
                return 400, wire.anthropic_error("invalid_request_error", f"messages.{index}.content.{number}: "
                                                 "unexpected `tool_use_id` found in `tool_result` blocks: "
                                                 f"{block.get('tool_use_id')}. Each `tool_result` block must have a "
                                                 "corresponding `tool_use` block in the previous message.")
    return None


def thinking_refused(body: dict, secret: bytes) -> tuple[int, dict] | None:
    """Anthropic's extended-thinking rules, when thinking is on: temperature stays 1, every thinking
    block comes back byte for byte (its signature still matches), and while a tool loop is under way
    the last assistant turn starts with a thinking block."""
    temperature = body.get("temperature")
    if temperature is not None and temperature != 1:
        return 400, wire.anthropic_error("invalid_request_error", "`temperature` may only be set to 1 when thinking "
                                         f"is enabled. Please consult our documentation at {wire.THINKING_DOCS}"
                                         "#important-considerations-when-using-extended-thinking")
    messages = body.get("messages", [])
    for index, message in enumerate(messages):
        if message["role"] != "assistant":
            continue
        for number, block in enumerate(blocks(message)):
            if block.get("type") == "thinking" and block.get("signature") != sign(secret, block.get("thinking", "")):
                return wire.anthropic_bad_signature(index, number)
    last = max((i for i, m in enumerate(messages) if m["role"] == "assistant"), default=None)
    if last is None or last + 1 >= len(messages):
        return None
    in_tool_loop = any(b.get("type") == "tool_result" for b in blocks(messages[last + 1]))
    content = blocks(messages[last])
    first = content[0].get("type") if content else "nothing"
    if in_tool_loop and first not in ("thinking", "redacted_thinking"):
        return wire.anthropic_thinking_missing(last, first)
    return None
