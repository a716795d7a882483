"""Models behind one tiny protocol: `complete(messages, tools) -> ModelTurn`.

Specs: `scripted:<policy>`, `openai:<model>` (any OpenAI-compatible endpoint), `openai-responses:<model>`
(OpenAI's Responses API), `anthropic:<model>`.
A spec is checked whole before anything starts (`check_spec`): the policy exists, and a remote
model has an endpoint or a key to reach it with.
"""

from __future__ import annotations

import os
import urllib.parse
from typing import Protocol

from impasse.defaults import MODEL_TIMEOUT
from impasse.models.failures import ContextExhausted, ModelSpecError, RequestRefused, TransportError
from impasse.models.spec import KINDS, VENDOR, parse_spec
from impasse.models.turns import ModelTurn

# The package's face: what the rest of impasse imports from `impasse.models`.
__all__ = ["KINDS", "VENDOR", "ContextExhausted", "Model", "ModelSpecError", "RequestRefused", "TransportError",
           "check_spec", "make_model", "parse_spec"]

class Model(Protocol):
    name: str

    def complete(self, messages: list[dict], tools: list[dict]) -> ModelTurn: ...


def check_spec(spec: str, base_url: str | None = None, key_env: str | None = None) -> None:
    """Refuse, before anything starts, a model that could only fail: an unknown scripted policy, or a
    remote model with neither a key nor an endpoint (a local endpoint may need no key)."""
    kind, name = parse_spec(spec)
    if kind == "scripted":
        from impasse.models.policies import policy_names
        if name not in policy_names():
            raise ModelSpecError(f"unknown scripted policy {name!r}; known: {', '.join(policy_names())}")
        return
    vendor = VENDOR[kind]
    url_problem = endpoint_problem(base_url or os.environ.get(f"{vendor}_BASE_URL"))
    if url_problem:
        raise ModelSpecError(f"{spec}: {url_problem}")
    key_var = key_env or f"{vendor}_API_KEY"
    if key_env and not os.environ.get(key_env):
        raise ModelSpecError(f"{spec}: its key is to be read from {key_env}, which is not set")
    if not (os.environ.get(key_var) or base_url or os.environ.get(f"{vendor}_BASE_URL")):
        raise ModelSpecError(f"{spec}: set {key_var} (or give an endpoint with --base-url or "
                             f"{vendor}_BASE_URL)")


def endpoint_problem(base_url: str | None) -> str | None:
    """Why an endpoint is not one (None when it is, or when none is given): an http(s) URL with a host."""
    if not base_url:
        return None
    parts = urllib.parse.urlsplit(base_url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return f"the endpoint {base_url!r} is not an http:// or https:// URL with a host"
    return None


def make_model(spec: str, *, context=None, seed: int = 0, base_url: str | None = None,
               timeout: float = MODEL_TIMEOUT, settings=None, key_env: str | None = None) -> Model:
    """`settings` (config.ModelSettings) are sent with every request; `key_env` names the variable
    that holds the key (default <VENDOR>_API_KEY)."""
    kind, name = parse_spec(spec)
    if kind == "scripted":
        from impasse.models.policies import make_policy
        return make_policy(name, context, seed)
    from impasse.models.config import ModelSettings
    settings = settings or ModelSettings()
    if kind == "openai":
        from impasse.models.openai_chat import OpenAIChat
        return OpenAIChat(name, base_url=base_url, timeout=timeout, settings=settings, key_env=key_env)
    if kind == "openai-responses":
        from impasse.models.openai_responses import OpenAIResponses
        return OpenAIResponses(name, base_url=base_url, timeout=timeout, settings=settings, key_env=key_env)
    from impasse.models.anthropic_messages import AnthropicMessages
    return AnthropicMessages(name, base_url=base_url, timeout=timeout, settings=settings, key_env=key_env)
