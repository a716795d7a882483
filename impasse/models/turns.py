"""What a model returns for one request: its text, its tool calls and the tokens it used. Every
adapter reports usage under the same keys, whatever its vendor calls them."""

from __future__ import annotations

from dataclasses import dataclass, field

# What a preflight asks every adapter (runs/preflight.py): one line, answered in a token or so.
PREFLIGHT = [{"role": "user", "content": "Reply with the word ok."}]


@dataclass(slots=True)
class ToolCall:
    id: str
    name: str
    arguments: dict | None  # None when the model's arguments were not valid JSON
    raw_arguments: str = ""

    def to_message(self) -> dict:
        return {"id": self.id, "type": "function",
                "function": {"name": self.name, "arguments": self.raw_arguments}}


@dataclass
class ModelTurn:
    text: str
    tool_calls: list[ToolCall] = field(default_factory=list)
    usage: dict = field(default_factory=dict)
    # The model's own reasoning (thinking blocks, reasoning summaries): kept apart from `text`, which
    # is what it said; the annotator never reads reasoning as something said to a human.
    reasoning: str = ""
    # What the vendor needs back verbatim on the next request (Anthropic's signed thinking blocks,
    # a Responses API's reasoning items): opaque to the loop, carried on the assistant message.
    carry: list = field(default_factory=list)


def usage(prompt_tokens: int | None, completion_tokens: int | None, *, cached_tokens: int | None = None,
          cache_write_tokens: int | None = None, reasoning_tokens: int | None = None) -> dict:
    """Token usage in impasse's keys (OpenAI's names), whatever the vendor calls them.

    `prompt_tokens` is the whole input, cached or not; `cached_tokens` the part of it read from the
    provider's prompt cache and `cache_write_tokens` the part written to it (Anthropic bills both
    apart); `reasoning_tokens` the part of `completion_tokens` spent on reasoning. A key a vendor
    does not report is absent, never 0, so a cost can say it does not know."""
    total = None if prompt_tokens is None or completion_tokens is None else prompt_tokens + completion_tokens
    used = {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens, "total_tokens": total}
    extras = {"cached_tokens": cached_tokens, "cache_write_tokens": cache_write_tokens,
              "reasoning_tokens": reasoning_tokens}
    return used | {key: value for key, value in extras.items() if value is not None}
