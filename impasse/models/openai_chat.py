"""Any OpenAI-compatible chat-completions endpoint with tool calling (OpenAI, vLLM, Ollama,
llama.cpp server, OpenRouter). The key comes from OPENAI_API_KEY and is never written anywhere."""

from __future__ import annotations

import json

from impasse.defaults import MODEL_TIMEOUT
from impasse.models.retry import with_retries
from impasse.models.sdk import make_client
from impasse.models.turns import ModelTurn, ToolCall, usage


def retryable(err: Exception) -> bool:
    import openai
    if not isinstance(err, (openai.APIError, EmptyResponse)):
        raise err  # a bug on our side, not the endpoint's: let it surface
    if isinstance(err, openai.APIStatusError):
        return err.status_code == 429 or err.status_code >= 500
    return isinstance(err, (openai.APIConnectionError, openai.APITimeoutError, EmptyResponse))


class EmptyResponse(RuntimeError):
    pass


class OpenAIChat:
    def __init__(self, model: str, base_url: str | None = None, timeout: float = MODEL_TIMEOUT) -> None:
        self.name = f"openai:{model}"
        self.model = model
        self.client = make_client("openai", "OpenAI", "OPENAI", base_url, timeout)
        from openai.types.chat import ChatCompletion  # the package is loaded by make_client
        self.completion = ChatCompletion

    def complete(self, messages: list[dict], tools: list[dict]) -> ModelTurn:
        body = {"model": self.model, "messages": messages, "temperature": 0,
                **({"tools": tools} if tools else {})}  # an empty list is refused: no tools, no key

        def call():
            # Posted as the plain JSON it already is: `chat.completions.create` first walks the whole
            # conversation against its typed schema, ~15 ms of CPU a turn at 30 turns and growing with
            # each, which at dozens of episodes in flight is a core's worth of the harness.
            response = self.client.post("/chat/completions", body=body, cast_to=self.completion)
            if not response.choices:
                raise EmptyResponse("the endpoint answered without choices")
            return response
        response = with_retries(call, retryable, f"chat completion from {self.name}")
        message = response.choices[0].message
        calls = [parse_call(c.id, c.function.name, c.function.arguments) for c in message.tool_calls or []]
        used = usage(response.usage.prompt_tokens, response.usage.completion_tokens) if response.usage else {}
        return ModelTurn(message.content or "", calls, used)


def parse_call(call_id: str, name: str, raw: str | None) -> ToolCall:
    raw = raw or ""
    try:
        arguments = json.loads(raw) if raw.strip() else {}
    except json.JSONDecodeError:
        arguments = None
    if arguments is not None and not isinstance(arguments, dict):
        arguments = None
    return ToolCall(call_id, name, arguments, raw)
