"""impasse's tools in opencode's names, and back (opencode 1.18: `bash {command}`, `edit {filePath,
oldString, newString}`, `write {filePath, content}`, and impasse's MCP tools as `impasse_<tool>`).

opencode shows the model a command's output and never its exit code. A scripted policy reads the
code, so its commands run in a subshell followed by one line that prints it; the relay reads the
code from that line and takes the line away (a provider's model runs its commands as it wrote them,
and its results keep no code)."""

from __future__ import annotations

import re

from impasse.models.turns import ToolCall
from impasse.vocabulary import TERMINAL_ARGUMENT, Tool

OPENCODE = "opencode"
MCP_PREFIX = "impasse_"  # opencode: <server>_<tool>
EXIT_LINE = re.compile(r"\n?\[impasse: exit (-?\d+)\]\n?\Z")
# opencode's own words for an edit or a write it made, and for one it could not: the code it does not give
DONE = ("Edit applied successfully.", "Wrote file successfully.")
NOT_DONE = ("Could not find oldString in the file",)


def with_exit_line(command: str) -> str:
    return f"(\n{command}\n)\nprintf '\\n[impasse: exit %d]\\n' $?"


WRAPPED = re.compile(r"\A\(\n(.*)\n\)\nprintf '\\n\[impasse: exit %d\]\\n' \$\?\Z", re.S)


def unwrapped(command: str) -> str:
    """A command as the policy wrote it, without the exit line impasse put around it (its transcript
    shows the command as opencode ran it)."""
    found = WRAPPED.match(command)
    return found.group(1) if found else command


def to_opencode(call: ToolCall) -> tuple[str, dict]:
    """A policy's call as opencode's tool and arguments (an edit's path already absolute)."""
    args = call.arguments or {}
    if call.name in TERMINAL_ARGUMENT:
        return MCP_PREFIX + call.name, dict(args)
    if call.name == Tool.BASH:
        return "bash", {"command": with_exit_line(str(args.get("command", "")))}
    if call.name == Tool.EDIT_FILE:
        path = str(args.get("path", ""))
        if not args.get("old_str"):
            return "write", {"filePath": path, "content": str(args.get("new_str", ""))}
        return "edit", {"filePath": path, "oldString": str(args["old_str"]), "newString": str(args.get("new_str", ""))}
    return call.name, dict(args)


def from_opencode(name: str, args: dict) -> tuple[str, dict] | None:
    """opencode's edit and write as impasse's edit_file (None: not one of them)."""
    if name == "edit" and "filePath" in args:
        return Tool.EDIT_FILE, {"path": str(args.get("filePath", "")), "old_str": str(args.get("oldString", "")),
                                "new_str": str(args.get("newString", ""))}
    if name == "write" and "filePath" in args:
        return Tool.EDIT_FILE, {"path": str(args.get("filePath", "")), "old_str": "",
                                "new_str": str(args.get("content", ""))}
    return None


def opencode_output(text: str) -> tuple[str, int | None]:
    """A result as (output, exit code): the code from impasse's own last line, where it is there."""
    found = EXIT_LINE.search(text)
    if found is None:
        said = text.strip()
        return text, 0 if said.startswith(DONE) else 1 if said.startswith(NOT_DONE) else None
    return text[:found.start()], int(found.group(1))
