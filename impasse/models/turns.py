"""What a model returns for one request: its text, its tool calls and the tokens it used. Every
adapter reports usage under the same keys, whatever its vendor calls them."""

from __future__ import annotations

from dataclasses import dataclass, field


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


def usage(prompt_tokens: int | None, completion_tokens: int | None) -> dict:
    """Token usage in impasse's keys (OpenAI's names), whatever the vendor calls them."""
    total = None if prompt_tokens is None or completion_tokens is None else prompt_tokens + completion_tokens
    return {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens, "total_tokens": total}
