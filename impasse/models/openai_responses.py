"""OpenAI's Responses API (`openai-responses:<model>`), the API that carries a reasoning model's
reasoning between turns. Stateless, as Codex uses it: `store: false`, the whole conversation sent
each turn as input items; with `reasoning_effort` set, the reasoning items come back with their
encrypted content (`include: reasoning.encrypted_content`), are kept as the turn's `carry` and are
sent back in place on the next turn. Their summaries, when the model gives one, are the turn's
reasoning, kept apart from its text. Key and settings as the chat adapter's."""

from __future__ import annotations

from impasse.defaults import MODEL_TIMEOUT
from impasse.models.config import ModelSettings
from impasse.models.errors import describe_openai
from impasse.models.openai_chat import parse_call
from impasse.models.retry import with_retries
from impasse.models.sdk import make_client
from impasse.models.turns import PREFLIGHT, ModelTurn, usage

MIN_OUTPUT = 16  # the Responses API refuses a max_output_tokens below 16


def to_input(messages: list[dict]) -> tuple[str, list[dict]]:
    """impasse's chat-style messages as (instructions, input items)."""
    instructions = "\n\n".join(m["content"] for m in messages if m["role"] == "system")
    items: list[dict] = []
    for message in messages:
        role = message["role"]
        if role == "user":
            items.append({"role": "user", "content": message["content"]})
        elif role == "assistant":
            items += list(message.get("carry") or ())  # reasoning first, as it came
            if message.get("content"):
                items.append({"role": "assistant", "content": message["content"]})
            items += [{"type": "function_call", "call_id": call["id"], "name": call["function"]["name"],
                       "arguments": call["function"]["arguments"]} for call in message.get("tool_calls") or ()]
        elif role == "tool":
            items.append({"type": "function_call_output", "call_id": message["tool_call_id"],
                          "output": message["content"]})
    return instructions, items


def to_response_tools(tools: list[dict]) -> list[dict]:
    return [{"type": "function", "name": t["function"]["name"], "description": t["function"]["description"],
             "parameters": t["function"]["parameters"]} for t in tools]


class OpenAIResponses:
    def __init__(self, model: str, base_url: str | None = None, timeout: float = MODEL_TIMEOUT,
                 settings: ModelSettings | None = None, key_env: str | None = None) -> None:
        self.name = f"openai-responses:{model}"
        self.model = model
        self.settings = settings or ModelSettings()
        self.client = make_client("openai", "OpenAI", "OPENAI", base_url, timeout, key_env)
        from openai.types.responses import Response  # the package is loaded by make_client
        self.response = Response

    def body(self, messages: list[dict], tools: list[dict], max_tokens: int | None) -> dict:
        settings = self.settings
        instructions, items = to_input(messages)
        reasoning = {"effort": settings.reasoning_effort, "summary": "auto"} if settings.reasoning_effort else None
        chosen = {"instructions": instructions or None, "tools": to_response_tools(tools) or None,
                  "temperature": settings.temperature, "max_output_tokens": max_tokens, "reasoning": reasoning,
                  "include": ["reasoning.encrypted_content"] if reasoning else None}
        return {"model": self.model, "input": items, "store": False,
                **{k: v for k, v in chosen.items() if v is not None}, **settings.extra_body}

    def post(self, body: dict, what: str):
        return with_retries(lambda: self.client.post("/responses", body=body, cast_to=self.response),
                            describe_openai, f"{what} from {self.name}")

    def complete(self, messages: list[dict], tools: list[dict]) -> ModelTurn:
        response = self.post(self.body(messages, tools, self.settings.max_tokens), "response")
        text, calls, summaries, carry = [], [], [], []
        for item in response.output:
            if item.type == "message":
                text += [part.text for part in item.content if part.type == "output_text"]
            elif item.type == "function_call":
                calls.append(parse_call(item.call_id, item.name, item.arguments))
            elif item.type == "reasoning":
                summaries += [part.text for part in item.summary or ()]
                if getattr(item, "encrypted_content", None):
                    carry.append(item.model_dump(exclude_none=True))
        return ModelTurn("".join(text), calls, usage_of(response.usage), "\n".join(summaries), carry)

    def preflight(self, tools: list[dict]) -> None:
        """One request of the fewest output tokens the API takes, with the tools and every setting."""
        self.post(self.body(PREFLIGHT, tools, MIN_OUTPUT), "preflight")


def usage_of(reported) -> dict:
    if reported is None:
        return {}
    return usage(reported.input_tokens, reported.output_tokens,
                 cached_tokens=getattr(reported.input_tokens_details, "cached_tokens", None),
                 reasoning_tokens=getattr(reported.output_tokens_details, "reasoning_tokens", None))
