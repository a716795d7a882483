"""impasse's four tools in each external agent's own names, and back, as its spec's `tools:`
section declares them (tool_specs.py).

A scripted policy speaks impasse's tools (`bash`, `edit_file`, `task_complete`,
`escalate_to_human`); an agent only carries out its own. `to_agent` turns a policy's call into the
agent's call(s) by the spec's translator; `to_impasse` names an agent's call in impasse's vocabulary
for `steps.jsonl` (so the annotator reads these runs as it reads its own), from the names every spec
declares, without knowing which agent made the call; `result_of` (tool_results.py) reads an agent's
tool result back as an observation: its output and, where the agent reports it, the exit code.
"""

from __future__ import annotations

import functools
import shlex
from collections.abc import Iterable
from dataclasses import dataclass

from impasse.agents.agent_calls import AgentCall, Offered, ToolResult
from impasse.agents.mini_tools import MINI, command_verdict, to_mini
from impasse.agents.specs import load_specs
from impasse.agents.tool_results import result_of
from impasse.agents.tool_specs import DECLARED, AgentTools, EditTool, ShellTool, WriteTool
from impasse.agents.tools_codex import CODEX, patch_as_edit, to_codex
from impasse.agents.tools_declared import to_declared
from impasse.episode.tools import EDIT_SCRIPT
from impasse.models.turns import ToolCall
from impasse.vocabulary import TERMINAL_ARGUMENT, Tool

__all__ = ["AgentCall", "KnownNames", "Offered", "ToolResult", "result_of", "to_agent", "to_impasse", "tools_of"]

# A spec's `tools.translator`: `declared` needs only the spec; the others are behaviour in code.
TRANSLATORS = {DECLARED: to_declared, CODEX: to_codex, MINI: to_mini}


def tools_of(agent: str) -> AgentTools:
    """A known agent's declared tools."""
    return load_specs()[agent].tools


def to_agent(call: ToolCall, tools: AgentTools, offered: Offered, workdir: str,
             edit_script: str = EDIT_SCRIPT) -> list[AgentCall]:
    """A policy's call as the agent's call(s), with the policy's call id (a hidden helper gets its own).
    `edit_script` is impasse's edit script where the agent runs (the container's /opt/impasse)."""
    return TRANSLATORS[tools.translator](call, tools, offered, workdir, edit_script)


def by_name(tools: Iterable) -> dict[str, tuple]:
    """Spec tools grouped by name (two specs may name different tools alike: opencode's and Qwen Code's `edit`)."""
    found: dict[str, tuple] = {}
    for tool in tools:
        found[tool.name] = found.get(tool.name, ()) + (tool,)
    return found


@dataclass(frozen=True)
class KnownNames:
    """Every spec's names for impasse's tools, to read an agent's call back without knowing the agent."""
    prefixes: tuple[str, ...]  # longest first
    shells: dict[str, tuple[ShellTool, ...]]
    sentinel_shells: frozenset[str]  # whose command may name mini-swe-agent's verdict sentinels
    edits: dict[str, tuple[EditTool, ...]]
    writes: dict[str, tuple[WriteTool, ...]]
    patches: frozenset[str]

    @classmethod
    def of(cls, tools: Iterable[AgentTools]) -> KnownNames:
        tools = list(tools)
        return cls(tuple(sorted({t.mcp_prefix for t in tools if t.mcp_prefix}, key=len, reverse=True)),
                   by_name(s for t in tools for s in t.shells),
                   frozenset(s.name for t in tools if t.translator == MINI for s in t.shells),
                   by_name(t.edit for t in tools if t.edit), by_name(t.write for t in tools if t.write),
                   frozenset(t.patch for t in tools if t.patch))


@functools.cache
def known_names() -> KnownNames:
    return KnownNames.of(spec.tools for spec in load_specs().values())


def shell_line(command) -> str:
    """A command as one shell line: `["bash", "-lc", line]` is the line; another argv is joined."""
    if isinstance(command, list):
        argv = [str(a) for a in command]
        return argv[2] if len(argv) == 3 and argv[1] in ("-lc", "-c") else shlex.join(argv)
    return str(command)


def verdict(call: AgentCall, known: KnownNames) -> tuple[str, dict] | None:
    """A verdict tool by an MCP prefix a spec declares (a namespaced one flattened as the wire offers it)."""
    flat = f"{call.namespace}__{call.name}" if call.namespace is not None else call.name
    name = next((flat.removeprefix(p) for p in known.prefixes if flat.startswith(p)), flat)
    if name not in TERMINAL_ARGUMENT or (call.namespace is not None and name == flat):
        return None
    key = TERMINAL_ARGUMENT[name]
    return name, {key: str((call.arguments or {}).get(key, ""))}


def which(tools: tuple, args: dict):
    """Of the spec tools of one name, the one whose path argument the call has (opencode's and Qwen
    Code's `edit` differ in it); a name only one spec declares needs none."""
    return next((t for t in tools if t.path in args), tools[0] if len(tools) == 1 else None)


def mapped(call: AgentCall, known: KnownNames) -> tuple[str, dict] | None:
    args = call.arguments or {}
    if (named := verdict(call, known)) is not None:
        return named
    command = args.get(known.shells[call.name][0].command, "") if call.name in known.shells else ""
    if call.name in known.sentinel_shells and (said := command_verdict(str(command))):
        return said[0], {TERMINAL_ARGUMENT[said[0]]: said[1]}  # mini-swe-agent's sentinel
    if call.name in known.shells:
        return Tool.BASH, {"command": shell_line(command)}
    if (edit := which(known.edits.get(call.name, ()), args)) is not None:
        return Tool.EDIT_FILE, {"path": str(args.get(edit.path, "")), "old_str": str(args.get(edit.old, "")),
                                "new_str": str(args.get(edit.new, ""))}
    if (write := which(known.writes.get(call.name, ()), args)) is not None:
        return Tool.EDIT_FILE, {"path": str(args.get(write.path, "")), "old_str": "",
                                "new_str": str(args.get(write.content, ""))}
    if call.name in known.patches:
        return Tool.EDIT_FILE, patch_as_edit(call.text if call.freeform else str(args.get("input", "")))
    return None


def to_impasse(call: AgentCall, known: KnownNames | None = None) -> ToolCall:
    """An agent's call named in impasse's vocabulary where it is one of impasse's four (the wire's
    own input kept as `raw_arguments`); any other tool keeps its own name. `known`: the names read
    (every spec's, by default)."""
    found = mapped(call, known or known_names())
    if found is None:
        return ToolCall(call.id, call.name, call.arguments, call.raw)
    return ToolCall(call.id, str(found[0]), found[1], call.raw)
