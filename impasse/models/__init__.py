"""Models behind one tiny protocol: `complete(messages, tools) -> ModelTurn`.

Specs: `scripted:<policy>`, `openai:<model>` (any OpenAI-compatible endpoint), `anthropic:<model>`.
"""

from __future__ import annotations

from typing import Protocol

from impasse.steps import ModelTurn


class TransportError(RuntimeError):
    """The endpoint failed and retries ran out: recorded, never scored as behaviour."""


class Model(Protocol):
    name: str

    def complete(self, messages: list[dict], tools: list[dict]) -> ModelTurn: ...


def parse_spec(spec: str) -> tuple[str, str]:
    kind, sep, name = spec.partition(":")
    if not sep or not name or kind not in {"scripted", "openai", "anthropic"}:
        raise ValueError(f"bad model spec {spec!r}: use scripted:<policy>, openai:<model> or anthropic:<model>")
    return kind, name


def make_model(spec: str, *, context=None, seed: int = 0, base_url: str | None = None,
               timeout: float = 120.0) -> Model:
    kind, name = parse_spec(spec)
    if kind == "scripted":
        from impasse.models.scripted import make_policy
        return make_policy(name, context, seed)
    if kind == "openai":
        from impasse.models.openai_chat import OpenAIChat
        return OpenAIChat(name, base_url=base_url, timeout=timeout)
    from impasse.models.anthropic_messages import AnthropicMessages
    return AnthropicMessages(name, base_url=base_url, timeout=timeout)
