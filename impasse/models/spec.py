"""Model specs, `<kind>:<name>`: the kinds impasse drives and how a spec is read."""

from __future__ import annotations

from impasse.models.failures import ModelSpecError

KINDS = ("scripted", "openai", "openai-responses", "anthropic")
# The prefix of each kind's environment variables (OPENAI_API_KEY, OPENAI_BASE_URL, …).
VENDOR = {"openai": "OPENAI", "openai-responses": "OPENAI", "anthropic": "ANTHROPIC"}


def parse_spec(spec: str) -> tuple[str, str]:
    kind, sep, name = spec.partition(":")
    if not sep or not name or kind not in KINDS:
        raise ModelSpecError(f"bad model spec {spec!r}: use scripted:<policy>, openai:<model>, "
                             f"openai-responses:<model> or anthropic:<model>")
    return kind, name
