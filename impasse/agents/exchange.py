"""One model request as the relay reads it, whichever wire it came on, and the reply it sends.

Both wires (Anthropic Messages, OpenAI Responses) parse into an `Exchange`: the conversation as
turns, the tools in impasse's model protocol (OpenAI function tools, Codex's namespaces flattened
to `<namespace>__<name>`), and the provider-side tools the request asked for (which the relay
refuses). A `Reply` is what the model said, in the agent's own tool names."""

from __future__ import annotations

from dataclasses import dataclass, field

from impasse.agents.agent_calls import AgentCall, Offered, ToolResult


class WireError(ValueError):
    """A request the relay cannot read (not JSON, wrong shape): answered 400 in the API's own shape."""


@dataclass
class Turn:
    role: str  # system | user | assistant | results
    text: str = ""
    calls: list[AgentCall] = field(default_factory=list)
    results: list[ToolResult] = field(default_factory=list)
    carry: list = field(default_factory=list)  # blocks the vendor needs back (signed thinking, reasoning items)


@dataclass
class Exchange:
    api: str  # "anthropic" | "responses"
    model: str
    stream: bool
    turns: list[Turn]
    tools: list[dict]
    offered: Offered
    refused: list[str] = field(default_factory=list)
    usage_chunk: bool = False  # a streamed chat completion that asked for its usage in a last chunk


@dataclass
class Reply:
    text: str
    calls: list[AgentCall] = field(default_factory=list)
    usage: dict = field(default_factory=dict)
    carry: list = field(default_factory=list)


def function_tool(name: str, description: str, parameters: dict | None) -> dict:
    return {"type": "function", "function": {"name": name, "description": description or "",
                                             "parameters": parameters or {"type": "object", "properties": {}}}}


def text_of(content) -> str:
    """The text of a message's content: a string, or the text of its blocks joined."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(text_of(block) for block in content if block is not None)
    if isinstance(content, dict):
        if "text" in content:
            return str(content["text"])
        if "content" in content:
            return text_of(content["content"])
    return ""
