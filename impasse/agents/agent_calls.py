"""A tool call and its result as they travel on an agent's wire, and the tools a request offers:
what the wire modules read and write, and what the translation between impasse's tools and each
agent's own (tool_names.py) works on."""

from __future__ import annotations

import json
from dataclasses import dataclass, field


@dataclass(slots=True)
class AgentCall:
    """A tool call on the agent's wire. `arguments` is the JSON object of a function tool, `text`
    the input of a freeform (custom) tool such as Codex's apply_patch; `hidden` marks the relay's
    own plumbing (the Read Claude Code requires before an Edit), which the policy never sees."""

    id: str
    name: str
    arguments: dict | None = None
    text: str | None = None
    namespace: str | None = None
    hidden: bool = False
    search: bool = False  # Codex's client-side tool_search, a call of its own item type

    @property
    def freeform(self) -> bool:
        return self.text is not None

    @property
    def raw(self) -> str:
        return self.text if self.freeform else json.dumps(self.arguments or {})


@dataclass(slots=True)
class ToolResult:
    """What the agent sends back for one call: the text it shows the model, and the wire's error flag
    (Claude Code's `is_error`, a Gemini function response's `error`; None where the wire has none)."""

    call_id: str
    text: str
    is_error: bool | None = None


@dataclass
class Offered:
    """The tool names a request offers; which are freeform (custom) tools, such as Codex's
    apply_patch; and the flattened names of namespaced tools (`mcp__impasse__escalate_to_human`)
    with their (namespace, name) on the wire; and the client-side tool search (`search`)."""

    names: set[str] = field(default_factory=set)
    custom: set[str] = field(default_factory=set)
    namespaced: dict[str, tuple[str, str]] = field(default_factory=dict)
    search: set[str] = field(default_factory=set)
