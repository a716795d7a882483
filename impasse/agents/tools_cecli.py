"""impasse's tools in cecli's names, and back (cecli 1.10: `local--Command {command, timeout, pty}`,
impasse's MCP tools as `impasse--<tool>`).

Its own edit tool (`local--EditFile`) finds a range by its first and last lines' text or hashed
prefixes, which an exact old string cannot always say; a policy's edit runs impasse's own edit script
through its shell instead, as under Codex without apply_patch: the same edit, the same words. A policy's
command runs without a terminal (`pty: false`), as impasse's own loop runs it; a model's runs as it asks.

cecli answers every tool call with a JSON object (`{"result": [{"content": …}], "errors": […]}`), and a
command's content with its status first: `Shell command completed within 120s timeout (exit code 0).
Output:\\n…`, `… with exit code 1. Output:\\n…`."""

from __future__ import annotations

import json
import re

from impasse.agents.mini_tools import mini_command
from impasse.defaults import TOOL_TIMEOUT
from impasse.models.turns import ToolCall
from impasse.vocabulary import TERMINAL_ARGUMENT, Tool

CECLI = "cecli"
MCP_PREFIX = "impasse--"  # <server>--<tool>
SHELL = "local--Command"
STATUS = re.compile(r"\A(?:Shell|Interactive) command [^\n]*?(?:\(exit code (?P<ok>-?\d+)\)|exit code (?P<code>-?\d+))"
                    r"\.(?: Output:\n)?")
STILL_RUNNING = "Command exceeded "  # its timeout passed: the command goes on in the background, no status


def to_cecli(call: ToolCall, edit_script: str) -> tuple[str, dict]:
    """A policy's call as cecli's tool and arguments."""
    args = call.arguments or {}
    if call.name in TERMINAL_ARGUMENT:
        return MCP_PREFIX + call.name, dict(args)
    if call.name in (Tool.BASH, Tool.EDIT_FILE):
        return SHELL, {"command": mini_command(call, edit_script), "timeout": TOOL_TIMEOUT, "pty": False}
    return call.name, dict(args)


def from_cecli(name: str, args: dict) -> tuple[str, dict] | None:
    """Its shell as impasse's bash (None: not its shell)."""
    if name == SHELL and "command" in args:
        return Tool.BASH, {"command": str(args.get("command", ""))}
    return None


def content_of(text: str) -> str:
    """The text of cecli's result object (its contents, then its errors), or the text as it came."""
    try:
        answer = json.loads(text)
    except ValueError:
        return text
    if not isinstance(answer, dict) or not isinstance(answer.get("result"), list):
        return text
    parts = [str(r.get("content", "")) for r in answer["result"] if isinstance(r, dict)]
    parts += [str(e) for e in answer.get("errors") or []]
    return "\n".join(parts)


def cecli_output(text: str) -> tuple[str, int | None]:
    """A result as (output, exit code): a command's output after its status line, the terminal's
    line ends made plain; any other result's text with no code."""
    text = content_of(text).replace("\r\n", "\n")
    found = STATUS.match(text)
    if found is None:
        return text, None
    return text[found.end():], int(found["ok"] if found["ok"] is not None else found["code"])
