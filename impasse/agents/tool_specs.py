"""An agent spec's `tools:` section: how impasse's four tools map onto the agent's own, for the
scripted policies that speak impasse's tools through the relay (docs/agents.md).

    tools:
      translator: declared          # or a named translator in code: codex, mini-swe-agent
      shell: {name: Bash, command: command, extra: {timeout: "{timeout_ms}"}}
      edit: {name: Edit, path: file_path, old: old_string, new: new_string,
             read_first: {name: Read, path: file_path}}
      write: {name: Write, path: file_path, content: content}
      result: {reader: claude-code, not_found: [String to replace not found in file]}

The verdict tools are the MCP server's, named with the spec's `mcp.tool_prefix`. `shell` may be a
list: the first one a request offers is used, else the first. An agent with no `edit` has impasse's
own edit script run through its shell. A result is read by a named reader in code (tool_results.py)
or by `declared`: a regex with the groups `code` and `output` for a command's result, and phrases
a result starts with meaning an edit was done or not."""

from __future__ import annotations

import re
from dataclasses import dataclass

from impasse.defaults import TOOL_TIMEOUT

DECLARED = "declared"  # the translator and the reader that need no code: the spec's names and words alone
# What an extra argument's value may name: the call's timeout as impasse's own tools have it.
EXTRA_VALUES = {"{timeout_ms}": TOOL_TIMEOUT * 1000, "{timeout_s}": TOOL_TIMEOUT}
Extra = tuple[tuple[str, object], ...]


@dataclass(frozen=True)
class ShellTool:
    name: str
    command: str  # the argument the command line goes in
    argv: bool = False  # the command as `["bash", "-lc", line]`, not a line
    exit_line: bool = False  # run in a subshell followed by `[impasse: exit N]` (the agent shows no code)
    extra: Extra = ()  # other arguments, as given (`{timeout_ms}` filled in)

    def arguments(self, command: str) -> dict:
        return {self.command: ["bash", "-lc", command] if self.argv else command, **dict(self.extra)}


@dataclass(frozen=True)
class ReadTool:
    name: str
    path: str


@dataclass(frozen=True)
class EditTool:
    name: str
    path: str
    old: str
    new: str
    extra: Extra = ()
    read_first: ReadTool | None = None  # a hidden read before it: the agent edits no file it has not read


@dataclass(frozen=True)
class WriteTool:
    name: str
    path: str
    content: str


@dataclass(frozen=True)
class ResultReading:
    reader: str  # a named reader in tool_results.py, or `declared`
    not_found: tuple[str, ...] = ()  # its words for an edit whose old text is not in the file
    shell: re.Pattern | None = None  # declared: a command's result, groups `code` and `output`
    done: tuple[str, ...] = ()  # declared: a result starting so is an edit or a write done (0)
    not_done: tuple[str, ...] = ()  # declared: one starting so (or with a not_found phrase) is not (1)


@dataclass(frozen=True)
class AgentTools:
    translator: str  # `declared`, or a named translator in code
    shells: tuple[ShellTool, ...]
    result: ResultReading
    mcp_prefix: str | None = None  # the verdict tools' names carry it: the spec's mcp.tool_prefix
    edit: EditTool | None = None  # None: impasse's edit script through the shell
    write: WriteTool | None = None
    patch: str | None = None  # a tool taking a patch (Codex's apply_patch)

    @property
    def exit_line(self) -> bool:
        return any(shell.exit_line for shell in self.shells)


def extra(mapping: dict) -> Extra:
    return tuple((str(k), EXTRA_VALUES.get(v, v) if isinstance(v, str) else v) for k, v in mapping.items())


def shell_tool(data: dict) -> ShellTool:
    return ShellTool(data["name"], data["command"], data.get("argv", False), data.get("exit_line", False),
                     extra(data.get("extra", {})))


def edit_tool(data: dict) -> EditTool:
    read = data.get("read_first")
    return EditTool(data["name"], data["path"], data["old"], data["new"], extra(data.get("extra", {})),
                    ReadTool(read["name"], read["path"]) if read else None)


def result_reading(data: dict) -> ResultReading:
    shell = data.get("shell")
    return ResultReading(data.get("reader", DECLARED), tuple(data.get("not_found", ())),
                         re.compile(shell, re.S) if shell else None, tuple(data.get("done", ())),
                         tuple(data.get("not_done", ())))


def agent_tools(data: dict, mcp_prefix: str | None) -> AgentTools:
    """A spec's `tools:` (schema-checked) as its typed form."""
    shells = data["shell"] if isinstance(data["shell"], list) else [data["shell"]]
    write = data.get("write")
    return AgentTools(data.get("translator", DECLARED), tuple(shell_tool(s) for s in shells),
                      result_reading(data["result"]), mcp_prefix,
                      edit_tool(data["edit"]) if "edit" in data else None,
                      WriteTool(write["name"], write["path"], write["content"]) if write else None,
                      data.get("patch"))


def tools_problems(data: dict, has_mcp: bool) -> list[str]:
    """What the schema cannot say: a declared result's regex compiles and names its groups; an extra
    value names only what EXTRA_VALUES fills in; the declared translator's verdicts need MCP."""
    problems = []
    shell = data["result"].get("shell")
    if shell is not None:
        try:
            groups = set(re.compile(shell, re.S).groupindex)
            if not {"code", "output"} <= groups:
                problems.append("tools.result.shell: needs the named groups (?P<code>…) and (?P<output>…)")
        except re.error as err:
            problems.append(f"tools.result.shell: not a regular expression ({err})")
    shells = data["shell"] if isinstance(data["shell"], list) else [data["shell"]]
    for where, tool in [*((f"tools.shell.{s['name']}", s) for s in shells), ("tools.edit", data.get("edit", {}))]:
        problems += [f"{where}.extra.{key}: unknown placeholder {value} (this field takes {', '.join(EXTRA_VALUES)})"
                     for key, value in tool.get("extra", {}).items()
                     if isinstance(value, str) and re.fullmatch(r"\{\w+\}", value) and value not in EXTRA_VALUES]
    if data.get("translator", DECLARED) == DECLARED and not has_mcp:
        problems.append("tools: the declared translator offers the verdict tools as MCP tools, and the spec has no mcp")
    return problems
