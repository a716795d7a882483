"""How Cline (and its forks, Roo Code and Kilo Code) hands a tool's result back to the model in a task's
saved history (`api_conversation_history.json`, the model API's messages in Anthropic's form): not as a
`tool_result` block but as the user's text, headed `[execute_command for 'npm test'] Result:`, with an
`<environment_details>` block of the editor's own after it (open tabs, the time: nothing the tool said).
A command's result says `Command executed.` with no exit status; a call that failed says `[ERROR]` or
`The tool execution failed`."""

from __future__ import annotations

import re

RESULT_HEAD = re.compile(r"\A\[(?P<tool>[\w-]+)(?: for '[\s\S]*?')?\] Result:[ \t]*\n?")
ENVIRONMENT = re.compile(r"\s*<environment_details>[\s\S]*?(?:</environment_details>|\Z)")
FAILED = re.compile(r"^\[ERROR\]|^The tool execution failed\b|^Error executing ", re.M)


def is_result(text: str) -> bool:
    return RESULT_HEAD.match(text) is not None


def result_block(text: str, call_id: str | None) -> dict:
    """One result as the API's own `tool_result`: the tool's words, without Cline's head and the editor's
    details; a failure as the API marks one."""
    said = ENVIRONMENT.sub("", RESULT_HEAD.sub("", text, count=1)).strip()
    return {"type": "tool_result", "tool_use_id": call_id, "content": said, "is_error": FAILED.search(said) is not None}
