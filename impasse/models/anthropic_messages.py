"""Anthropic's Messages API with tool use. The key comes from ANTHROPIC_API_KEY and is never
written anywhere. Internally impasse keeps OpenAI-style messages; they are translated here."""

from __future__ import annotations

import json

from impasse.defaults import MODEL_TIMEOUT
from impasse.models.retry import with_retries
from impasse.models.sdk import make_client
from impasse.models.turns import ModelTurn, ToolCall, usage

MAX_TOKENS = 4096


def retryable(err: Exception) -> bool:
    import anthropic
    if not isinstance(err, anthropic.APIError):
        raise err  # a bug on our side, not the endpoint's: let it surface
    if isinstance(err, anthropic.APIStatusError):
        return err.status_code == 429 or err.status_code >= 500
    return isinstance(err, (anthropic.APIConnectionError, anthropic.APITimeoutError))


def to_anthropic_tools(tools: list[dict]) -> list[dict]:
    return [{"name": t["function"]["name"], "description": t["function"]["description"],
             "input_schema": t["function"]["parameters"]} for t in tools]


def to_anthropic_messages(messages: list[dict]) -> tuple[str, list[dict]]:
    system = "\n\n".join(m["content"] for m in messages if m["role"] == "system")
    converted: list[dict] = []
    for message in messages:
        if message["role"] == "assistant":
            blocks = [{"type": "text", "text": message["content"]}] if message.get("content") else []
            for call in message.get("tool_calls") or []:
                try:
                    arguments = json.loads(call["function"]["arguments"] or "{}")
                except json.JSONDecodeError:
                    arguments = {"_unparsed": call["function"]["arguments"]}
                blocks.append({"type": "tool_use", "id": call["id"], "name": call["function"]["name"],
                               "input": arguments})
            converted.append({"role": "assistant", "content": blocks or [{"type": "text", "text": "(no text)"}]})
        elif message["role"] == "tool":
            block = {"type": "tool_result", "tool_use_id": message["tool_call_id"], "content": message["content"]}
            if converted and converted[-1]["role"] == "user" and isinstance(converted[-1]["content"], list):
                converted[-1]["content"].append(block)
            else:
                converted.append({"role": "user", "content": [block]})
        elif message["role"] == "user":
            converted.append({"role": "user", "content": [{"type": "text", "text": message["content"]}]})
    return system, converted


class AnthropicMessages:
    def __init__(self, model: str, base_url: str | None = None, timeout: float = MODEL_TIMEOUT) -> None:
        self.name = f"anthropic:{model}"
        self.model = model
        self.client = make_client("anthropic", "Anthropic", "ANTHROPIC", base_url, timeout)

    def complete(self, messages: list[dict], tools: list[dict]) -> ModelTurn:
        system, converted = to_anthropic_messages(messages)
        response = with_retries(
            lambda: self.client.messages.create(model=self.model, system=system, messages=converted,
                                                tools=to_anthropic_tools(tools), max_tokens=MAX_TOKENS),
            retryable, f"message from {self.name}")
        text = "".join(block.text for block in response.content if block.type == "text")
        calls = [ToolCall(b.id, b.name, b.input if isinstance(b.input, dict) else None,
                          json.dumps(b.input)) for b in response.content if b.type == "tool_use"]
        used = usage(response.usage.input_tokens, response.usage.output_tokens)
        return ModelTurn(text, calls, used)
