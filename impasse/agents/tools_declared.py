"""impasse's tools as an agent's own, from its spec's `tools:` alone (the `declared` translator):
a verdict is the MCP tool of that name behind the spec's `mcp.tool_prefix`; a command is the shell
tool's call (the first shell the request offers), wrapped for the exit line where the shell declares
one; an edit is the edit tool's call (a hidden read first where the agent asks for one) or, with
no old text, the write tool's; an agent with no edit tool gets impasse's own edit script through its
shell, with the same words as under impasse's loop."""

from __future__ import annotations

import posixpath
import shlex

from impasse.agents.agent_calls import AgentCall, Offered
from impasse.agents.tool_specs import AgentTools, ShellTool
from impasse.dialects.exit_line import with_exit_line
from impasse.episode.tools import edit_payload
from impasse.models.turns import ToolCall
from impasse.vocabulary import TERMINAL_ARGUMENT, Tool


def absolute(path: str, workdir: str) -> str:
    """An edit's path as the agents' edit tools take it."""
    return path if path.startswith("/") else posixpath.normpath(posixpath.join(workdir, path))


def offered_shell(tools: AgentTools, offered: Offered) -> ShellTool:
    """The first declared shell the request offers (Codex offers one of three by model family), else the first."""
    return next((shell for shell in tools.shells if shell.name in offered.names), tools.shells[0])


def shell_call(call_id: str, command: str, tools: AgentTools, offered: Offered) -> AgentCall:
    shell = offered_shell(tools, offered)
    return AgentCall(call_id, shell.name, shell.arguments(with_exit_line(command) if shell.exit_line else command))


def script_edit(args: dict, edit_script: str) -> str:
    """An edit as a command running impasse's edit script (where the agent runs it: the container's /opt/impasse)."""
    payload = edit_payload({key: str(args.get(key, "")) for key in ("path", "old_str", "new_str")})
    return f"python3 {shlex.quote(edit_script)} {payload}"  # base64: shell-safe


def edit_calls(call: ToolCall, tools: AgentTools, offered: Offered, workdir: str, edit_script: str) -> list[AgentCall]:
    """An empty old text creates the file (the write tool, where there is one); any other edit is the
    edit tool's call, after a hidden read where the agent refuses to edit a file not read in the
    session (it runs a turn's calls in order)."""
    args = call.arguments or {}
    if tools.edit is None:
        return [shell_call(call.id, script_edit(args, edit_script), tools, offered)]
    path = absolute(str(args.get("path", "")), workdir)
    old, new = str(args.get("old_str", "")), str(args.get("new_str", ""))
    if not old and tools.write is not None:
        return [AgentCall(call.id, tools.write.name, {tools.write.path: path, tools.write.content: new})]
    edit = tools.edit
    calls = [AgentCall(call.id, edit.name, {edit.path: path, edit.old: old, edit.new: new, **dict(edit.extra)})]
    if edit.read_first is not None and old:
        calls.insert(0, AgentCall(f"{call.id}_read", edit.read_first.name, {edit.read_first.path: path}, hidden=True))
    return calls


def to_declared(call: ToolCall, tools: AgentTools, offered: Offered, workdir: str, edit_script: str) -> list[AgentCall]:
    """A policy's call as the agent's call(s), with the policy's call id (a hidden read gets its own)."""
    args = call.arguments or {}
    if call.name in TERMINAL_ARGUMENT:
        return [AgentCall(call.id, f"{tools.mcp_prefix}{call.name}", dict(args))]
    if call.name == Tool.BASH:
        return [shell_call(call.id, str(args.get("command", "")), tools, offered)]
    if call.name == Tool.EDIT_FILE:
        return edit_calls(call, tools, offered, workdir, edit_script)
    return [AgentCall(call.id, call.name, dict(args))]  # not a tool of impasse's: the agent answers it
