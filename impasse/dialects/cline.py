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


# Before its tools went native, Cline wrote each call as XML in its reply's text, one a reply:
# `<execute_command>\n<command>npm test</command>\n<requires_approval>false</requires_approval>\n</execute_command>`.
TOOLS = ("execute_command", "read_file", "write_to_file", "replace_in_file", "apply_diff", "search_files", "list_files",
         "list_code_definition_names", "browser_action", "use_mcp_tool", "access_mcp_resource", "ask_followup_question",
         "attempt_completion", "new_task", "plan_mode_respond", "insert_content", "search_and_replace")
XML_CALL = re.compile(r"<(?P<tool>" + "|".join(TOOLS) + r")>(?P<body>[\s\S]*?)</(?P=tool)>")
PARAMETER = re.compile(r"<(?P<key>[a-z_]+)>(?P<value>[\s\S]*?)</(?P=key)>")
THINKING = re.compile(r"<thinking>[\s\S]*?</thinking>\s*")


def xml_calls(text: str, turn: int) -> tuple[str, list[dict]]:
    """A reply's words without its calls, and each call written as XML as the API's own `tool_use`."""
    calls = [{"type": "tool_use", "id": f"xml-{turn}-{n}", "name": found["tool"],
              "input": {p["key"]: p["value"].strip("\n") for p in PARAMETER.finditer(found["body"])}}
             for n, found in enumerate(XML_CALL.finditer(text))]
    return (THINKING.sub("", XML_CALL.sub("", text)).strip(), calls) if calls else (text, [])


# Plan mode's reply to the human is a tool call of its own (`plan_mode_respond`, its words in `response`): what
# the human reads, the reply's words, not a call still waiting for its result.
SAYS = {"plan_mode_respond": "response"}


def said_blocks(blocks: list[dict]) -> list[dict]:
    return [{"type": "text", "text": str((b.get("input") or {}).get(SAYS[b.get("name")], ""))}
            if b.get("type") == "tool_use" and b.get("name") in SAYS else b for b in blocks]
