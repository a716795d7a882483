"""impasse's tools as Codex's own: a named translator in code, since what Codex is sent depends on
what each request offers, not on names alone. Its shell is the first of its spec's shells the
request offers (unified exec `exec_command`, else `shell_command` or `shell` of other model
families); an edit is `apply_patch`, a custom (freeform) tool or a function one as offered, or
impasse's own edit script through the shell where a patch cannot say it or apply_patch is not
offered; the verdict tools are called in the MCP server's `namespace` group, not by a flat name."""

from __future__ import annotations

import difflib
import re

from impasse.agents.agent_calls import AgentCall, Offered
from impasse.agents.tool_specs import AgentTools
from impasse.agents.tools_declared import script_edit, shell_call
from impasse.models.turns import ToolCall
from impasse.vocabulary import TERMINAL_ARGUMENT, Tool

CODEX = "codex"  # the translator's name in a spec
PATCH_FILE = re.compile(r"^\*\*\* (?:Add|Update) File: (.+)$", re.M)


def namespace_of(tools: AgentTools) -> str:
    """The MCP server's namespace group: the tool prefix without the `__` the wire flattens it with."""
    return (tools.mcp_prefix or "").removesuffix("__")


def codex_patch(path: str, old: str, new: str) -> str:
    """The edit in Codex's patch envelope: a new file is an Add File; a change is one hunk whose
    lines around the change are its context (Codex finds the hunk by its old lines)."""
    if not old:
        lines = "".join(f"+{line}\n" for line in new.splitlines())
        return f"*** Begin Patch\n*** Add File: {path}\n{lines}*** End Patch\n"
    before, after = old.splitlines(), new.splitlines()
    body = []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(a=before, b=after, autojunk=False).get_opcodes():
        if op == "equal":
            body += [f" {line}" for line in before[i1:i2]]
            continue
        body += [f"-{line}" for line in before[i1:i2]] + [f"+{line}" for line in after[j1:j2]]
    return f"*** Begin Patch\n*** Update File: {path}\n@@\n" + "\n".join(body) + "\n*** End Patch\n"


def patch_as_edit(patch: str) -> dict:
    """A patch as edit_file's arguments: its first file, the lines it removes and the lines it adds."""
    found = PATCH_FILE.search(patch)
    lines = patch.splitlines()
    return {"path": found.group(1).strip() if found else "",
            "old_str": "\n".join(ln[1:] for ln in lines if ln.startswith("-")),
            "new_str": "\n".join(ln[1:] for ln in lines if ln.startswith("+"))}


def line_aligned(text: str) -> bool:
    return text == "" or text.endswith("\n")


def codex_edit(call: ToolCall, tools: AgentTools, offered: Offered, edit_script: str) -> AgentCall:
    """apply_patch as the request offers it (custom: the patch is the input; function: {"input"}).
    Where it is not offered (Codex leaves it out for a model it has no metadata for) or the edit
    is inside a line, which a patch cannot say, impasse's own edit script does it, through the shell:
    the same edit and the same words as under impasse's own loop."""
    args = call.arguments or {}
    path, old, new = args.get("path", ""), args.get("old_str", ""), args.get("new_str", "")
    if tools.patch in offered.names and line_aligned(old) and line_aligned(new):
        patch = codex_patch(path, old, new)
        if tools.patch in offered.custom:
            return AgentCall(call.id, tools.patch, text=patch)
        return AgentCall(call.id, tools.patch, {"input": patch})
    return shell_call(call.id, script_edit(args, edit_script), tools, offered)


def to_codex(call: ToolCall, tools: AgentTools, offered: Offered, workdir: str, edit_script: str) -> list[AgentCall]:
    args = call.arguments or {}
    if call.name in TERMINAL_ARGUMENT:
        return [AgentCall(call.id, call.name, dict(args), namespace=namespace_of(tools))]
    if call.name == Tool.BASH:
        return [shell_call(call.id, args.get("command", ""), tools, offered)]
    if call.name == Tool.EDIT_FILE:
        return [codex_edit(call, tools, offered, edit_script)]
    return [AgentCall(call.id, call.name, dict(args))]
