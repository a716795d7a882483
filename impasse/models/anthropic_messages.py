"""Anthropic's Messages API with tool use, extended thinking and prompt caching. The key comes from
ANTHROPIC_API_KEY (or the model's `key_env`) and is never written anywhere. Internally impasse keeps
OpenAI-style messages; they are translated here.

Thinking: with a budget, each reply's thinking blocks are kept (as the turn's `carry`) and sent back
unchanged, signatures included, at the head of that assistant turn, as the API requires while a tool
loop is under way. Caching: breakpoints on the system prompt (which caches the tools with it) and on
the latest turn, so each request pays the full price only for what is new since the last one."""

from __future__ import annotations

import json

from impasse.defaults import MODEL_TIMEOUT
from impasse.models.config import ModelSettings
from impasse.models.errors import describe_anthropic
from impasse.models.retry import with_retries
from impasse.models.sdk import make_client
from impasse.models.turns import PREFLIGHT, ModelTurn, ToolCall, usage

MAX_TOKENS = 4096  # the answer's own room; a thinking budget comes on top of it
EPHEMERAL = {"type": "ephemeral"}
KEPT_BLOCKS = ("thinking", "redacted_thinking")  # what must come back verbatim


def to_anthropic_tools(tools: list[dict]) -> list[dict]:
    return [{"name": t["function"]["name"], "description": t["function"]["description"],
             "input_schema": t["function"]["parameters"]} for t in tools]


def assistant_blocks(message: dict) -> list[dict]:
    blocks = list(message.get("carry") or ())  # thinking first: the API checks the order
    if message.get("content"):
        blocks.append({"type": "text", "text": message["content"]})
    for call in message.get("tool_calls") or []:
        try:
            arguments = json.loads(call["function"]["arguments"] or "{}")
        except json.JSONDecodeError:
            arguments = {"_unparsed": call["function"]["arguments"]}
        blocks.append({"type": "tool_use", "id": call["id"], "name": call["function"]["name"], "input": arguments})
    return blocks or [{"type": "text", "text": "(no text)"}]


def to_anthropic_messages(messages: list[dict]) -> tuple[str, list[dict]]:
    system = "\n\n".join(m["content"] for m in messages if m["role"] == "system")
    converted: list[dict] = []
    for message in messages:
        if message["role"] == "assistant":
            converted.append({"role": "assistant", "content": assistant_blocks(message)})
        elif message["role"] == "tool":
            block = {"type": "tool_result", "tool_use_id": message["tool_call_id"], "content": message["content"]}
            if converted and converted[-1]["role"] == "user" and isinstance(converted[-1]["content"], list):
                converted[-1]["content"].append(block)
            else:
                converted.append({"role": "user", "content": [block]})
        elif message["role"] == "user":
            converted.append({"role": "user", "content": [{"type": "text", "text": message["content"]}]})
    return system, converted


def with_breakpoints(system: str, converted: list[dict]) -> tuple[list[dict], list[dict]]:
    """Cache breakpoints on the system prompt and on the last block of the latest turn. The latest
    turn's blocks are copied, not marked in place: the next request's breakpoint moves on, and a
    stale one left behind would spend one of the four the API allows."""
    system_blocks = [{"type": "text", "text": system, "cache_control": EPHEMERAL}] if system else []
    if converted:
        last = converted[-1]
        blocks = [dict(block) for block in last["content"]]
        blocks[-1]["cache_control"] = EPHEMERAL
        converted = converted[:-1] + [{"role": last["role"], "content": blocks}]
    return system_blocks, converted


class AnthropicMessages:
    def __init__(self, model: str, base_url: str | None = None, timeout: float = MODEL_TIMEOUT,
                 settings: ModelSettings | None = None, key_env: str | None = None) -> None:
        self.name = f"anthropic:{model}"
        self.model = model
        self.settings = settings or ModelSettings()
        self.client = make_client("anthropic", "Anthropic", "ANTHROPIC", base_url, timeout, key_env)

    def request(self, messages: list[dict], tools: list[dict], max_tokens: int | None) -> dict:
        settings = self.settings
        system, converted = with_breakpoints(*to_anthropic_messages(messages))
        thinking = {"type": "enabled", "budget_tokens": settings.thinking} if settings.thinking else None
        room = max_tokens or settings.max_tokens or (settings.thinking or 0) + MAX_TOKENS
        # `temperature` rides in the body as given: the SDK's create() of this release takes no such
        # argument, though the API still does.
        body = {**({"temperature": settings.temperature} if settings.temperature is not None else {}),
                **settings.extra_body}
        chosen = {"system": system or None, "tools": to_anthropic_tools(tools) or None, "thinking": thinking,
                  "extra_body": body or None}
        return {"model": self.model, "messages": converted, "max_tokens": room,
                **{k: v for k, v in chosen.items() if v is not None}}

    def create(self, request: dict, what: str):
        return with_retries(lambda: self.client.messages.create(**request), describe_anthropic,
                            f"{what} from {self.name}")

    def complete(self, messages: list[dict], tools: list[dict]) -> ModelTurn:
        response = self.create(self.request(messages, tools, None), "message")
        blocks = response.content
        text = "".join(block.text for block in blocks if block.type == "text")
        calls = [ToolCall(b.id, b.name, b.input if isinstance(b.input, dict) else None,
                          json.dumps(b.input)) for b in blocks if b.type == "tool_use"]
        reasoning = "\n".join(block.thinking for block in blocks if block.type == "thinking")
        carry = [block.model_dump(exclude_none=True) for block in blocks if block.type in KEPT_BLOCKS]
        return ModelTurn(text, calls, usage_of(response.usage), reasoning, carry)

    def preflight(self, tools: list[dict]) -> None:
        """One cheap request with the tools and every setting attached (1 token of answer; with
        thinking, the smallest room the API accepts above its budget)."""
        room = (self.settings.thinking + 1) if self.settings.thinking else 1
        self.create(self.request(PREFLIGHT, tools, room), "preflight")


def usage_of(reported) -> dict:
    """Anthropic's `input_tokens` leaves out what was read from or written to the cache; impasse's
    `prompt_tokens` is the whole input, with the cached parts as its named shares."""
    read = getattr(reported, "cache_read_input_tokens", None)
    written = getattr(reported, "cache_creation_input_tokens", None)
    whole = None if reported.input_tokens is None else reported.input_tokens + (read or 0) + (written or 0)
    return usage(whole, reported.output_tokens, cached_tokens=read, cache_write_tokens=written)
