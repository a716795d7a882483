"""An agent's tool result read back as an observation: its output and, where the agent reports it,
the exit code; else 0 for a call the agent reports as succeeded and 1 (failed, status unknown) for
one it reports as failed.

A spec's `tools.result.reader` picks the reader. Most are named readers here, since reading a
result is real logic: Claude Code's reminders and `Exit code N`, Codex's header block, Gemini CLI's
and Qwen Code's trailer lines, mini-swe-agent's JSON observation, cecli's result object. `declared` needs no code: the
spec's regex for a command's result, its phrases for an edit done or not, and impasse's own exit
line where its shell declares one (opencode). What an agent's result looks like is in impasse/dialects/,
which the annotator reads too; how the runtime hands it to impasse's model is here."""

from __future__ import annotations

import re

from impasse.agents.agent_calls import ToolResult
from impasse.agents.mini_tools import mini_output
from impasse.agents.tool_specs import DECLARED, AgentTools
from impasse.dialects import claude_code, codex, gemini_cli
from impasse.dialects.cecli import cecli_output
from impasse.dialects.exit_line import exit_code_of


def claude_output(text: str, is_error: bool | None) -> tuple[str, int | None]:
    """Claude Code's reminders appended to results are the agent's, not the command's."""
    text = claude_code.REMINDER.sub("\n", text).strip("\n") + ("\n" if text.strip() else "")
    if not is_error:
        return ("" if text.strip() == claude_code.NO_OUTPUT else text), 0
    return claude_code.failed_status(text)


def codex_output(text: str) -> tuple[str, int | None]:
    lines = text.split("\n")
    header = 0
    while header < len(lines) and codex.HEADER.fullmatch(lines[header]):
        header += 1
    code = codex.EXIT_LINE.search("\n".join(lines[:header]))
    if header < len(lines) and lines[header] == "Output:":
        body = "\n".join(lines[header + 1:])
    else:
        body = text if header == 0 else "\n".join(lines[header:])
    if code:
        return body, int(code.group(1))
    return body, None


def gemini_output(text: str, is_error: bool | None) -> tuple[str, int | None]:
    """A command's `Output:` and its code (Gemini's absent line is 0); an edit or a write they report
    done is 0; a result marked as an error is 1."""
    text = gemini_cli.unwrap(text)
    if text.startswith(gemini_cli.SHELL_STARTS):
        return gemini_command_output(text)
    if gemini_cli.DONE.match(text):
        return text, 0
    return text, 1 if is_error else None


def gemini_command_output(text: str) -> tuple[str, int | None]:
    lines = text.split("\n")
    fields: dict[str, str] = {}
    while lines and (found := gemini_cli.TRAILER_LINE.match(lines[-1])):
        fields[found.group(1)] = found.group(2)
        lines.pop()
    body, said = "\n".join(lines), gemini_cli.OUTPUT
    output = body[body.index(said) + len(said):] if said in body else body
    output = "" if output == gemini_cli.EMPTY else output + ("\n" if output else "")
    error = fields.get("Error", gemini_cli.NONE)
    if error != gemini_cli.NONE:
        output += error + "\n"
    code = gemini_cli.status_of(fields.get("Exit Code"))
    if code is not None:
        return output, code
    if error != gemini_cli.NONE:  # the spawn failed (`Error: spawn bash ENOENT`): no command ran, no status
        return output, None
    return output, 1 if fields.get("Signal", gemini_cli.NONE) != gemini_cli.NONE else 0 if said in body else None


def declared_output(result: ToolResult, tools: AgentTools) -> tuple[str, int | None]:
    """impasse's exit line where the shell declares one; else the spec's regex for a command's result
    (`code`, `output`); else its phrases: an edit done (0) or not (1); else the wire's error flag."""
    text, reading = result.text, tools.result
    if tools.exit_line and (read := exit_code_of(text)):
        return read
    if reading.shell is not None and (found := reading.shell.match(text)):
        code = found.group("code")
        return found.group("output") or "", int(code) if code is not None and re.fullmatch(r"-?\d+", code) else None
    said = text.strip()
    if said.startswith(reading.done):
        return text, 0
    if said.startswith(reading.not_done + reading.not_found):
        return text, 1
    return text, 1 if result.is_error else None


READERS = {
    DECLARED: declared_output,
    "claude-code": lambda result, tools: claude_output(result.text, result.is_error),
    "codex": lambda result, tools: codex_output(result.text),
    "gemini-cli": lambda result, tools: gemini_output(result.text, result.is_error),  # Qwen Code's too
    "mini-swe-agent": lambda result, tools: mini_output(result.text),
    "cecli": lambda result, tools: cecli_output(result.text),  # its result object, then its status line
}


def result_of(tools: AgentTools, result: ToolResult) -> tuple[str, int | None]:
    """An agent's tool result as (output, exit code), read as its spec says."""
    return READERS[tools.result.reader](result, tools)
