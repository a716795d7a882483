"""impasse's four tools in each external agent's own names, and back.

A scripted policy speaks impasse's tools (`bash`, `edit_file`, `task_complete`,
`escalate_to_human`); Claude Code and Codex only carry out their own. `to_agent` turns a policy's
call into the agent's call(s); `to_impasse` names an agent's call in impasse's vocabulary for
`steps.jsonl` (so the annotator reads these runs as it reads its own); `result_of` reads an agent's
tool result back as an observation: its output and, where the agent reports it, the exit code.
"""

from __future__ import annotations

import difflib
import json
import posixpath
import re
import shlex
from dataclasses import dataclass, field

from impasse.agents.mini_tools import MINI_TOOL, command_verdict, mini_command, mini_output
from impasse.agents.tools_cecli import CECLI, cecli_output, from_cecli, to_cecli
from impasse.agents.tools_cecli import MCP_PREFIX as CECLI_MCP_PREFIX
from impasse.agents.tools_gemini import GEMINI, QWEN, from_gemini, gemini_output, to_gemini
from impasse.agents.tools_gemini import MCP_PREFIX as GEMINI_MCP_PREFIX
from impasse.agents.tools_opencode import MCP_PREFIX as OPENCODE_MCP_PREFIX
from impasse.agents.tools_opencode import OPENCODE, from_opencode, opencode_output, to_opencode
from impasse.defaults import TOOL_TIMEOUT
from impasse.episode.tools import EDIT_SCRIPT, edit_payload
from impasse.models.turns import ToolCall
from impasse.vocabulary import TERMINAL_ARGUMENT, Tool

CLAUDE_CODE, CODEX, MINI = "claude-code", "codex", "mini-swe-agent"
AGENTS = (CLAUDE_CODE, CODEX, MINI, OPENCODE, GEMINI, QWEN, CECLI)
MCP_SERVER = "impasse"
CLAUDE_MCP_PREFIX = f"mcp__{MCP_SERVER}__"  # Claude Code: mcp__<server>__<tool>
CODEX_NAMESPACE = f"mcp__{MCP_SERVER}"  # Codex: a `namespace` tool group, the call carries it
EXEC_YIELD_MS = 30000  # unified exec's longest wait before it hands back a running session


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
    """What the agent sends back for one call: the text it shows the model, and Claude Code's
    `is_error` flag (None where the wire has none)."""

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


def absolute(path: str, workdir: str) -> str:
    return path if path.startswith("/") else posixpath.normpath(posixpath.join(workdir, path))


def anchored(call: ToolCall, workdir: str) -> ToolCall:
    """A policy's edit with its path made absolute, as the agents' edit tools take it."""
    if call.name != Tool.EDIT_FILE:
        return call
    arguments = dict(call.arguments or {})
    arguments["path"] = absolute(str(arguments.get("path", "")), workdir)
    return ToolCall(call.id, call.name, arguments, call.raw_arguments)


def to_agent(call: ToolCall, agent: str, offered: Offered, workdir: str,
             edit_script: str = EDIT_SCRIPT) -> list[AgentCall]:
    """A policy's call as the agent's call(s), with the policy's call id (a hidden helper gets its own).
    `edit_script` is impasse's edit script where the agent runs (the container's /opt/impasse)."""
    args = call.arguments or {}
    if agent == MINI:  # one tool: every call is a command (a verdict is its sentinel)
        return [AgentCall(call.id, MINI_TOOL, {"command": mini_command(call, edit_script)})]
    if agent == OPENCODE:
        return [AgentCall(call.id, *to_opencode(anchored(call, workdir)))]
    if agent == CECLI:
        return [AgentCall(call.id, *to_cecli(call, edit_script))]
    if agent in (GEMINI, QWEN):
        name, arguments = to_gemini(anchored(call, workdir), agent)
        if agent == QWEN and name == "edit":  # it refuses to edit a file not read in the session: a hidden read first
            return [AgentCall(f"{call.id}_read", "read_file", {"file_path": arguments["file_path"]}, hidden=True),
                    AgentCall(call.id, name, arguments)]
        return [AgentCall(call.id, name, arguments)]
    if call.name in TERMINAL_ARGUMENT:
        if agent == CLAUDE_CODE:
            return [AgentCall(call.id, CLAUDE_MCP_PREFIX + call.name, dict(args))]
        return [AgentCall(call.id, call.name, dict(args), namespace=CODEX_NAMESPACE)]
    if call.name == Tool.BASH:
        if agent == CLAUDE_CODE:
            return [AgentCall(call.id, "Bash", {"command": args.get("command", ""), "timeout": TOOL_TIMEOUT * 1000})]
        return [codex_shell(call.id, args.get("command", ""), offered)]
    if call.name == Tool.EDIT_FILE:
        if agent == CLAUDE_CODE:
            return claude_edit(call, args, workdir)
        return codex_edit(call, args, offered, edit_script)
    return [AgentCall(call.id, call.name, dict(args))]  # not a tool of impasse's: the agent answers it


# the agents' tools that start a process
SHELL_TOOLS = ("Bash", "exec_command", "shell_command", "shell", "bash", "run_shell_command", "local--Command")


def exec_call(call_id: str, command: str) -> AgentCall:
    return AgentCall(call_id, "exec_command", {"cmd": command, "yield_time_ms": EXEC_YIELD_MS})


def codex_shell(call_id: str, command: str, offered: Offered) -> AgentCall:
    """Codex's shell as the request offers it: unified exec (`exec_command`, 0.171.0's), else the
    older `shell_command {command}` or `shell {command: argv}` of other model families."""
    if "exec_command" not in offered.names and "shell_command" in offered.names:
        return AgentCall(call_id, "shell_command", {"command": command, "timeout_ms": TOOL_TIMEOUT * 1000})
    if "exec_command" not in offered.names and "shell" in offered.names:
        return AgentCall(call_id, "shell", {"command": ["bash", "-lc", command], "timeout_ms": TOOL_TIMEOUT * 1000})
    return exec_call(call_id, command)


def claude_edit(call: ToolCall, args: dict, workdir: str) -> list[AgentCall]:
    """An empty old_str creates the file (Write); any other edit is an Edit, which Claude Code refuses
    on a file not Read in this session, so a hidden Read goes first in the same turn (Claude Code
    runs a turn's calls in order)."""
    path = absolute(args.get("path", ""), workdir)
    if not args.get("old_str"):
        return [AgentCall(call.id, "Write", {"file_path": path, "content": args.get("new_str", "")})]
    read = AgentCall(f"{call.id}_read", "Read", {"file_path": path}, hidden=True)
    edit = AgentCall(call.id, "Edit", {"file_path": path, "old_string": args.get("old_str", ""),
                                       "new_string": args.get("new_str", "")})
    return [read, edit]


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


def line_aligned(text: str) -> bool:
    return text == "" or text.endswith("\n")


def codex_edit(call: ToolCall, args: dict, offered: Offered, edit_script: str) -> list[AgentCall]:
    """apply_patch as the request offers it (custom: the patch is the input; function: {"input"}).
    Where it is not offered (Codex leaves it out for a model it has no metadata for) or the edit
    is inside a line, which a patch cannot say, impasse's own edit script does it, through
    exec_command: the same edit and the same words as under impasse's own loop."""
    path, old, new = args.get("path", ""), args.get("old_str", ""), args.get("new_str", "")
    if "apply_patch" in offered.names and line_aligned(old) and line_aligned(new):
        patch = codex_patch(path, old, new)
        if "apply_patch" in offered.custom:
            return [AgentCall(call.id, "apply_patch", text=patch)]
        return [AgentCall(call.id, "apply_patch", {"input": patch})]
    payload = edit_payload({"path": path, "old_str": old, "new_str": new})
    return [codex_shell(call.id, f"python3 {shlex.quote(edit_script)} {payload}", offered)]  # base64: shell-safe


def to_impasse(call: AgentCall) -> ToolCall:
    """An agent's call named in impasse's vocabulary where it is one of impasse's four (the wire's
    own input kept as `raw_arguments`); any other tool keeps its own name."""
    args = call.arguments or {}
    name = call.name if call.namespace is not None else call.name.removeprefix(CLAUDE_MCP_PREFIX).removeprefix(
        OPENCODE_MCP_PREFIX).removeprefix(GEMINI_MCP_PREFIX[GEMINI]).removeprefix(CECLI_MCP_PREFIX)
    if name in TERMINAL_ARGUMENT and (call.namespace in (None, CODEX_NAMESPACE)):
        mapped = (name, {TERMINAL_ARGUMENT[name]: str(args.get(TERMINAL_ARGUMENT[name], ""))})
    elif call.name == MINI_TOOL and command_verdict(str(args.get("command", ""))):  # mini-swe-agent's sentinel
        tool, text = command_verdict(str(args.get("command", "")))
        mapped = (tool, {TERMINAL_ARGUMENT[tool]: text})
    elif call.name in SHELL_TOOLS:
        mapped = (Tool.BASH, {"command": shell_line(args.get("command", args.get("cmd", "")))})
    elif call.name == "Edit":
        mapped = (Tool.EDIT_FILE, {"path": str(args.get("file_path", "")), "old_str": str(args.get("old_string", "")),
                                   "new_str": str(args.get("new_string", ""))})
    elif call.name == "Write":
        mapped = (Tool.EDIT_FILE, {"path": str(args.get("file_path", "")), "old_str": "",
                                   "new_str": str(args.get("content", ""))})
    elif from_opencode(call.name, args) is not None:
        mapped = from_opencode(call.name, args)
    elif from_gemini(call.name, args) is not None:
        mapped = from_gemini(call.name, args)
    elif from_cecli(call.name, args) is not None:
        mapped = from_cecli(call.name, args)
    elif call.name == "apply_patch":
        mapped = (Tool.EDIT_FILE, patch_as_edit(call.text if call.freeform else str(args.get("input", ""))))
    else:
        return ToolCall(call.id, call.name, call.arguments, call.raw)
    return ToolCall(call.id, str(mapped[0]), mapped[1], call.raw)


def shell_line(command) -> str:
    """A command as one shell line: `["bash", "-lc", line]` is the line; another argv is joined."""
    if isinstance(command, list):
        argv = [str(a) for a in command]
        return argv[2] if len(argv) == 3 and argv[1] in ("-lc", "-c") else shlex.join(argv)
    return str(command)


PATCH_FILE = re.compile(r"^\*\*\* (?:Add|Update) File: (.+)$", re.M)


def patch_as_edit(patch: str) -> dict:
    """A patch as edit_file's arguments: its first file, the lines it removes and the lines it adds."""
    found = PATCH_FILE.search(patch)
    lines = patch.splitlines()
    return {"path": found.group(1).strip() if found else "",
            "old_str": "\n".join(ln[1:] for ln in lines if ln.startswith("-")),
            "new_str": "\n".join(ln[1:] for ln in lines if ln.startswith("+"))}


REMINDER = re.compile(r"\s*<system-reminder>.*?</system-reminder>\s*", re.S)
CLAUDE_NO_OUTPUT = "(Bash completed with no output)"  # Claude Code's words for an empty output
CLAUDE_EXIT = re.compile(r"\AExit code (-?\d+)\n?")
CODEX_HEADER = re.compile(r"(?:Chunk ID|Wall time|Process exited with code|Exit code|Original token count"
                          r"|Process running with session ID)\b.*")
CODEX_EXIT = re.compile(r"^(?:Process exited with code|Exit code:) (-?\d+)$", re.M)


# A result Claude Code marks `is_error` with no `Exit code N`: failed, its status not recorded. Read
# as the Claude Code importer reads it (1), so a run's steps.jsonl and its own transcript annotate alike.
FAILED_STATUS_UNKNOWN = 1


def result_of(agent: str, result: ToolResult) -> tuple[str, int | None]:
    """An agent's tool result as (output, exit code): the code where the agent says it, else 0 for
    a call the agent reports as succeeded and 1 (failed, status unknown) for one it reports as
    failed. Claude Code's reminders appended to results are the agent's, not the command's."""
    if agent == MINI:
        return mini_output(result.text)
    if agent == OPENCODE:
        return opencode_output(result.text)
    if agent in (GEMINI, QWEN):
        return gemini_output(result.text, result.is_error)
    if agent == CECLI:
        return cecli_output(result.text)
    if agent == CLAUDE_CODE:
        text = REMINDER.sub("\n", result.text).strip("\n") + ("\n" if result.text.strip() else "")
        if not result.is_error:
            return ("" if text.strip() == CLAUDE_NO_OUTPUT else text), 0
        found = CLAUDE_EXIT.match(text)
        return (text[found.end():], int(found.group(1))) if found else (text, FAILED_STATUS_UNKNOWN)
    return codex_output(result.text)


def codex_output(text: str) -> tuple[str, int | None]:
    lines = text.split("\n")
    header = 0
    while header < len(lines) and CODEX_HEADER.fullmatch(lines[header]):
        header += 1
    code = CODEX_EXIT.search("\n".join(lines[:header]))
    if header < len(lines) and lines[header] == "Output:":
        body = "\n".join(lines[header + 1:])
    else:
        body = text if header == 0 else "\n".join(lines[header:])
    if code:
        return body, int(code.group(1))
    return body, None
