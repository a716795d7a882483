"""Sessions kept one chat message a line, without an agent's own envelope: `{role, content, timestamp,
model}` lines as a recorder or a harness saved the model API's messages. In the Anthropic form (a
message's `content` a list of blocks, or one block a line with `role: tool` for a tool's result, as
Engram records Claude Code) they are read as Claude Code's entries are (LABELING.md rule 5); in
OpenAI's form (`tool_calls`, `tool_call_id`) as a session export's `messages` (rule 7). A session
export whose `messages` are in the Anthropic form (Amp's threads) is read the same way: its messages
are these lines."""

from __future__ import annotations

from pathlib import Path

from impasse.analysis.formats.chat_export import from_chat_export
from impasse.analysis.formats.claude_code import from_claude_code
from impasse.analysis.formats.common import ImportProblem
from impasse.analysis.normal_form import NTrajectory
from impasse.dialects import cline
from impasse.dialects.claude_code import EXIT_LINE

ROLES = ("user", "assistant", "tool")
TOOL_BLOCKS = ("tool_use", "tool_result")


def message_records(data) -> list:
    """The messages: the lines themselves, or an export's `messages` (one JSON object that holds them)."""
    if isinstance(data, dict):
        data = [data]
    if len(data) == 1 and isinstance(data[0], dict) and isinstance(data[0].get("messages"), list):
        return [m for m in data[0]["messages"] if isinstance(m, dict)]
    return data


def is_anthropic_export(data) -> bool:
    """A JSON object whose `messages` are chat messages in the Anthropic form, one with a tool's block
    (mini-swe-agent's messages carry `tool` roles and OpenAI's calls, never these blocks), or a bare list
    of them (Cline's and its forks' saved task history)."""
    messages = data.get("messages") if isinstance(data, dict) else data
    return isinstance(messages, list) \
        and any(isinstance(m, dict) and is_message_line(m) and any(map(shows_a_tool, blocks(m))) for m in messages)


def shows_a_tool(block) -> bool:
    """A tool's block, or a result Cline sent back as text (`[read_file for 'x'] Result:`)."""
    return isinstance(block, dict) and (block.get("type") in TOOL_BLOCKS
                                        or cline.is_result(str(block.get("text") or "")))


def is_message_line(record: dict) -> bool:
    return "type" not in record and record.get("role") in ROLES and "content" in record


def blocks(record: dict) -> list:
    content = record.get("content")
    return content if isinstance(content, list) else [content] if isinstance(content, dict) else []


def says_message_lines(record: dict) -> bool:
    """A line that shows the layout: a message line with a tool call or a tool's result."""
    return is_message_line(record) and (record.get("role") == "tool" or bool(record.get("tool_calls"))
                                        or any(map(shows_a_tool, blocks(record))))


def as_block(block) -> dict:
    """A recorder's block in the API's own keys (Engram names a call's id `tool_id`, its name
    `tool_name`, a result's text `output`); a failed command's result marked as Claude Code marks it."""
    if not isinstance(block, dict):
        return {"type": "text", "text": str(block)}
    kind = block.get("type")
    if kind == "tool_use" and "tool_id" in block:
        return {"type": "tool_use", "id": block["tool_id"], "name": block.get("tool_name"), "input": block.get("input")}
    if kind == "tool_result" and "tool_id" in block:
        output = block.get("output", block.get("content"))
        failed = block.get("is_error") or (isinstance(output, str) and EXIT_LINE.match(output) is not None)
        return {"type": "tool_result", "tool_use_id": block["tool_id"], "content": output, "is_error": bool(failed)}
    if kind == "tool_result" and "toolUseID" in block:
        return amp_result(block)
    if kind == "tool_use" and isinstance(block.get("input"), dict) and "cmd" in block["input"]:
        return {**block, "input": {"command": block["input"]["cmd"], **block["input"]}}  # Amp's Bash names it cmd
    return block


def amp_result(block: dict) -> dict:
    """Amp's result: `run` holds the tool's `result` (a command's output and exit code, a read's content,
    an edit's diff, or plain text) or its `error`; a failed command's status as Claude Code writes it."""
    run = block.get("run") if isinstance(block.get("run"), dict) else {}
    result, error = run.get("result"), run.get("error")
    content, failed = "" if result is None else str(result), False
    if isinstance(error, dict) or run.get("status") == "error":
        content, failed = error.get("message", "") if isinstance(error, dict) else str(error or ""), True
    elif isinstance(result, dict):
        content = next((result[k] for k in ("output", "content", "diff") if isinstance(result.get(k), str)), "")
        code = result.get("exitCode")
        if isinstance(code, int) and code != 0:
            content, failed = f"Exit code {code}\n{content}", True
    return {"type": "tool_result", "tool_use_id": block["toolUseID"], "content": content, "is_error": failed}


def line_messages(records) -> list[dict]:
    return [r for r in message_records(records) if is_message_line(r)]


def claude_entries(records: list[dict]) -> list[dict]:
    return entries_of(line_messages(records))


def entries_of(messages: list[dict]) -> list[dict]:
    """The message lines as Claude Code's entries (a tool's result is the user's turn in the API)."""
    entries, calls = [], []
    for record in messages:
        role = "user" if record["role"] == "tool" else record["role"]
        content = record.get("content")
        parts = [as_block(b) for b in blocks(record)] if not isinstance(content, str) else content
        if role == "assistant":
            parts = cline.said_blocks(with_xml_calls(parts, len(entries)))
            calls = [str(b.get("id")) for b in parts if b.get("type") == "tool_use"]
        elif role == "user":
            parts = results_said(parts, calls)
        message = {"role": role, "content": parts, "model": record.get("model")}
        entries.append({"type": role, "message": message, "timestamp": record.get("timestamp")})
    return entries


def with_xml_calls(parts, turn: int) -> list[dict]:
    """A reply's blocks, a call an older Cline wrote as XML in its text read as the call (dialects/cline.py)."""
    parts = [{"type": "text", "text": parts}] if isinstance(parts, str) else parts
    if any(b.get("type") == "tool_use" for b in parts):
        return parts
    read = []
    for block in parts:
        words, calls = cline.xml_calls(block.get("text") or "", turn) if block.get("type") == "text" else ("", [])
        read += ([{"type": "text", "text": words}] if words else []) + calls if calls else [block]
    return read


def results_said(parts, calls: list[str]):
    """A user's turn that is Cline's text of its tool's results (dialects/cline.py): each as the result of
    the call it answers, in order; any other turn as it is."""
    texts = [parts] if isinstance(parts, str) else [b.get("text") or "" for b in parts if b.get("type") == "text"]
    said = [text for text in texts if cline.is_result(text)]
    if not said:
        return parts
    return [cline.result_block(text, calls[i] if i < len(calls) else None) for i, text in enumerate(said)]


def from_message_lines(records: list[dict], path: Path) -> NTrajectory:
    messages = line_messages(records)
    if not any(says_message_lines(r) for r in messages):
        raise ImportProblem(f"{path}: not chat messages one a line (no line with a role, content and a tool call)")
    if any(m.get("tool_calls") or m.get("tool_call_id") for m in messages):
        trajectory = from_chat_export(messages, path)
    else:
        trajectory = from_claude_code(entries_of(messages), path)
    trajectory.source = "message-lines"
    return trajectory
