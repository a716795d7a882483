"""Any OpenAI-compatible chat-completions endpoint with tool calling (OpenAI, vLLM, Ollama,
llama.cpp server, OpenRouter). The key comes from OPENAI_API_KEY (or the model's `key_env`) and is
never written anywhere.

Only what the user set is sent: no `temperature` unless given (OpenAI's reasoning models refuse any
value but their default), `max_tokens` as `max_completion_tokens` (the name OpenAI's reasoning models
take; vLLM, llama.cpp and OpenRouter take it too), `reasoning_effort` as given, `extra_body` merged."""

from __future__ import annotations

import json

from impasse.defaults import MODEL_TIMEOUT
from impasse.models.config import ModelSettings
from impasse.models.errors import EmptyResponse, describe_openai
from impasse.models.retry import with_retries
from impasse.models.sdk import make_client
from impasse.models.turns import PREFLIGHT, ModelTurn, ToolCall, usage


class OpenAIChat:
    def __init__(self, model: str, base_url: str | None = None, timeout: float = MODEL_TIMEOUT,
                 settings: ModelSettings | None = None, key_env: str | None = None) -> None:
        self.name = f"openai:{model}"
        self.model = model
        self.settings = settings or ModelSettings()
        self.client = make_client("openai", "OpenAI", "OPENAI", base_url, timeout, key_env)
        from openai.types.chat import ChatCompletion  # the package is loaded by make_client
        self.completion = ChatCompletion

    def body(self, messages: list[dict], tools: list[dict], max_tokens: int | None) -> dict:
        settings = self.settings
        chosen = {"temperature": settings.temperature, "max_completion_tokens": max_tokens,
                  "reasoning_effort": settings.reasoning_effort}
        return {"model": self.model, "messages": [plain(m) for m in messages],
                **({"tools": tools} if tools else {}),  # an empty list is refused: no tools, no key
                **{k: v for k, v in chosen.items() if v is not None}, **settings.extra_body}

    def post(self, body: dict, what: str):
        def call():
            # Posted as the plain JSON it already is: `chat.completions.create` first walks the whole
            # conversation against its typed schema, ~15 ms of CPU a turn at 30 turns and growing with
            # each, which at dozens of episodes in flight is a core's worth of the harness.
            response = self.client.post("/chat/completions", body=body, cast_to=self.completion)
            if not response.choices:
                raise EmptyResponse("the endpoint answered without choices")
            return response
        return with_retries(call, describe_openai, f"{what} from {self.name}")

    def complete(self, messages: list[dict], tools: list[dict]) -> ModelTurn:
        response = self.post(self.body(messages, tools, self.settings.max_tokens), "chat completion")
        message = response.choices[0].message
        calls = [parse_call(c.id, c.function.name, c.function.arguments) for c in message.tool_calls or []]
        return ModelTurn(message.content or "", calls, usage_of(response.usage), reasoning_of(message))

    def preflight(self, tools: list[dict]) -> None:
        """One 1-token request with the tools and every setting attached: a wrong key, an unknown
        model, a refused setting or tools the server does not take answer here, before any container."""
        self.post(self.body(PREFLIGHT, tools, 1), "preflight")


def plain(message: dict) -> dict:
    """A message as the wire takes it: what another vendor needs carried back stays here."""
    return message if "carry" not in message else {k: v for k, v in message.items() if k != "carry"}


def reasoning_of(message) -> str:
    """vLLM and DeepSeek send the reasoning as `reasoning_content`, OpenRouter and newer vLLM as
    `reasoning`; OpenAI's own chat completions send none."""
    for key in ("reasoning_content", "reasoning"):
        value = getattr(message, key, None)
        if isinstance(value, str) and value:
            return value
    return ""


def usage_of(reported) -> dict:
    if reported is None:
        return {}
    prompt_details = getattr(reported, "prompt_tokens_details", None)
    completion_details = getattr(reported, "completion_tokens_details", None)
    return usage(reported.prompt_tokens, reported.completion_tokens,
                 cached_tokens=getattr(prompt_details, "cached_tokens", None),
                 reasoning_tokens=getattr(completion_details, "reasoning_tokens", None))


def parse_call(call_id: str, name: str, raw: str | None) -> ToolCall:
    raw = raw or ""
    try:
        arguments = json.loads(raw) if raw.strip() else {}
    except json.JSONDecodeError:
        arguments = None
    if arguments is not None and not isinstance(arguments, dict):
        arguments = None
    return ToolCall(call_id, name, arguments, raw)
