"""impasse's tools in the names of Gemini CLI and of Qwen Code (a fork of it), and back: the shell
`run_shell_command {command}`, Gemini's `replace {file_path, instruction, old_string, new_string}` and
Qwen's `edit {file_path, old_string, new_string}`, `write_file {file_path, content}` in both, and
impasse's MCP tools as `mcp_impasse_<tool>` (Gemini) or `mcp__impasse__<tool>` (Qwen).

Both tell the model a command's result in words: `Output: …` and then lines of their own (`Error:`,
`Exit Code:`, `Signal:`, `Background PIDs:`, `Process Group PGID:`); Gemini gives the exit code only
when it is not 0 and wraps every result in `<untrusted_context>`."""

from __future__ import annotations

import re

from impasse.models.turns import ToolCall
from impasse.vocabulary import TERMINAL_ARGUMENT, Tool

GEMINI, QWEN = "gemini-cli", "qwen-code"
MCP_PREFIX = {GEMINI: "mcp_impasse_", QWEN: "mcp__impasse__"}
EDIT_TOOL = {GEMINI: "replace", QWEN: "edit"}
WRAPPER = re.compile(r"\A\s*<untrusted_context>\n?(.*?)\n?</untrusted_context>\s*\Z", re.S)
TRAILER = re.compile(r"^(Error|Exit Code|Signal|Background PIDs|Process Group PGID): (.*)$")
# Their own words for an edit or a write they made: the code they do not give
DONE = re.compile(r"\A\s*(?:Successfully (?:modified file|created and wrote to new file|overwrote file)"
                  r"|The file: \S.* has been updated\.)")


def to_gemini(call: ToolCall, agent: str) -> tuple[str, dict]:
    """A policy's call as the agent's tool and arguments (an edit's path already absolute)."""
    args = call.arguments or {}
    if call.name in TERMINAL_ARGUMENT:
        return MCP_PREFIX[agent] + call.name, dict(args)
    if call.name == Tool.BASH:
        return "run_shell_command", {"command": str(args.get("command", ""))}
    if call.name == Tool.EDIT_FILE:
        path = str(args.get("path", ""))
        if not args.get("old_str"):
            return "write_file", {"file_path": path, "content": str(args.get("new_str", ""))}
        edit = {"file_path": path, "old_string": str(args["old_str"]), "new_string": str(args.get("new_str", ""))}
        return EDIT_TOOL[agent], edit | ({"instruction": "Apply the fix."} if agent == GEMINI else {})
    return call.name, dict(args)


def from_gemini(name: str, args: dict) -> tuple[str, dict] | None:
    """Their shell, edit and write as impasse's bash and edit_file (None: none of them)."""
    if name == "run_shell_command":
        return Tool.BASH, {"command": str(args.get("command", ""))}
    if name in ("replace", "edit") and "file_path" in args:
        return Tool.EDIT_FILE, {"path": str(args["file_path"]), "old_str": str(args.get("old_string", "")),
                                "new_str": str(args.get("new_string", ""))}
    if name == "write_file" and "file_path" in args:
        return Tool.EDIT_FILE, {"path": str(args["file_path"]), "old_str": "", "new_str": str(args.get("content", ""))}
    return None


def without_context(text: str) -> str:
    found = WRAPPER.match(text)
    return found.group(1) if found else text


def gemini_output(text: str, is_error: bool | None) -> tuple[str, int | None]:
    """A result as (output, exit code): a command's `Output:` and its code (Gemini's absent line is
    0); an edit or a write they report done is 0; a result marked as an error is 1."""
    text = without_context(text)
    if text.startswith(("Output: ", "Command: ")):
        return command_output(text)
    if DONE.match(text):
        return text, 0
    return text, 1 if is_error else None


def command_output(text: str) -> tuple[str, int | None]:
    lines = text.split("\n")
    fields: dict[str, str] = {}
    while lines and (found := TRAILER.match(lines[-1])):
        fields[found.group(1)] = found.group(2)
        lines.pop()
    body = "\n".join(lines)
    output = body[body.index("Output: ") + len("Output: "):] if "Output: " in body else body
    output = "" if output == "(empty)" else output + ("\n" if output else "")
    error = fields.get("Error", "(none)")
    if error != "(none)":
        output += error + "\n"
    code = fields.get("Exit Code")
    if code is not None and re.fullmatch(r"-?\d+", code):
        return output, int(code)
    return output, 1 if fields.get("Signal", "(none)") != "(none)" else 0 if "Output: " in body else None
