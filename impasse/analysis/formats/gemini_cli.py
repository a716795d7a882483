"""Gemini CLI session files (`~/.gemini/tmp/<project>/chats/session-<time>-<id8>.jsonl`; a chat saved
as one JSON object, the header with all its `messages`, is read as that one line): a header
line `{sessionId, projectHash, startTime, kind}`, then message records `{id, timestamp, type, content,
toolCalls…}` and `{"$set": …}` patches, replayed as Gemini CLI itself loads the file: a record with
an `id` replaces the message of that id (the CLI writes a model turn first empty, then again with its
calls and their results), `$set.messages` replaces them all and `$rewindTo` drops a message and
everything after it. One `gemini` message is one model turn, one step; its `toolCalls` are the
actions, each call's `result` its observation. `user` messages (the prompt, and the function
responses that repeat the calls' results) are no step and no observation. A chat saved from the
CLI's history keeps a turn's calls as `functionCall` parts of its content instead, and their results
only in the `functionResponse` parts of the user messages after it."""

from __future__ import annotations

from pathlib import Path

from impasse.analysis.formats.common import (
    FAILED_STATUS_UNKNOWN,
    ImportProblem,
    command_of,
    edit_action,
    other_action,
    text_of,
    verdict_action,
    verdict_of,
)
from impasse.analysis.normal_form import Action, NStep, NTrajectory, Obs
from impasse.dialects.gemini_cli import EMPTY, NO_STATUS, OUTPUT, PROCESS_ERROR, SHELL_TRAILERS, TIMED_OUT, unwrap
from impasse.vocabulary import Tool

SHELL_TOOLS = ("run_shell_command",)
MCP_PREFIX = "mcp_impasse_"  # Gemini names an MCP tool `mcp_<server>_<tool>`


def is_header(record: dict) -> bool:
    return isinstance(record.get("sessionId"), str) and isinstance(record.get("projectHash"), str)


def is_gemini_session(data) -> bool:
    """A whole Gemini CLI chat saved as one JSON object (`/chat save`, and the CLI's `session-*.json`
    before JSON Lines): the header's keys with all its `messages` in it, read as a header line."""
    return isinstance(data, dict) and is_header(data) and isinstance(data.get("messages"), list)


def is_gemini_record(record: dict) -> bool:
    """A line only a Gemini CLI session has: its header, or a model message."""
    return is_header(record) or (record.get("type") == "gemini" and isinstance(record.get("id"), str))


def keep_messages(messages: dict, listed) -> None:
    for message in listed if isinstance(listed, list) else []:
        if isinstance(message, dict) and isinstance(message.get("id"), str):
            messages[message["id"]] = message


def replay(records: list[dict]) -> tuple[dict, list[dict]]:
    """The session's metadata and its messages in order, as Gemini CLI loads the file (a dict keeps
    a replaced message in its first place, as the CLI's Map does)."""
    meta: dict = {}
    messages: dict[str, dict] = {}
    for record in records:
        if isinstance(record.get("$rewindTo"), str):
            ids = list(messages)
            start = ids.index(record["$rewindTo"]) if record["$rewindTo"] in ids else 0
            for gone in ids[start:]:
                del messages[gone]
        elif isinstance(record.get("id"), str):
            messages[record["id"]] = record
        elif isinstance(record.get("$set"), dict):
            if isinstance(record["$set"].get("messages"), list):
                messages.clear()
                keep_messages(messages, record["$set"]["messages"])
            meta.update(record["$set"])
        elif is_header(record):
            meta.update(record)
            keep_messages(messages, record.get("messages"))
    return meta, list(messages.values())


def response_text(part) -> tuple[str, bool]:
    """A functionResponse part's text (its `output`, else its `error`) and whether it is an error."""
    response = part.get("functionResponse", {}).get("response") if isinstance(part, dict) else None
    if not isinstance(response, dict):
        return text_of(response), False
    if "output" in response:
        return text_of(response["output"]), False
    if "error" in response:
        return text_of(response["error"]), True
    return text_of(response), False


def shell_result(text: str) -> tuple[str, int | None, bool]:
    """The shell tool's result as (the command's output, its exit code, timed out). `Output: …` then
    the trailers: `Exit Code: N` is the status, a `Signal:` without it a failure with no number, none
    of them 0 (the tool writes the status only when it is not 0); a process-level `Error:` line stays
    in the output, and leaves the status unknown when no `Exit Code` follows it. A cancelled,
    timed-out or backgrounded command records no status."""
    if text.startswith(NO_STATUS):
        return text, None, text.startswith(TIMED_OUT)
    if not text.startswith(OUTPUT):
        return text, None, False
    lines = text.removeprefix(OUTPUT).split("\n")
    code, signal = None, False
    for trailer in SHELL_TRAILERS:
        if len(lines) > 1 and (found := trailer.fullmatch(lines[-1])):
            lines.pop()
            code = int(found.group(1)) if found.groups() else code
            signal = signal or found.group(0).startswith("Signal: ")
    process_error = len(lines) > 1 and lines[-1].startswith(PROCESS_ERROR)  # the output is at least `(empty)`
    if code is None:
        code = FAILED_STATUS_UNKNOWN if signal else (None if process_error else 0)
    if lines[0] == EMPTY:
        lines = lines[1:]
    return "\n".join(lines), code, False


def gemini_action(name: str, args) -> Action:
    args = args if isinstance(args, dict) else {"raw": args}
    if name.startswith(MCP_PREFIX) and (verdict := verdict_action(f"mcp__impasse__{name[len(MCP_PREFIX):]}", args)):
        return verdict
    return shell_or_file_action(name, args, "replace")


def shell_or_file_action(name: str, args: dict, edit_tool: str) -> Action:
    """Gemini CLI's tools and its fork Qwen Code's, which name them alike but for the edit (`edit_tool`)."""
    if name in SHELL_TOOLS:
        return Action(Tool.BASH, command=command_of(args))
    if name == edit_tool:
        return edit_action(args.get("file_path"), args.get("new_string"))
    if name == "write_file":
        return edit_action(args.get("file_path"), args.get("content"))
    return other_action(name, args)


def call_obs(call: dict, action: Action, parts) -> Obs:
    """A call's observation from its result parts: the text of each response, unwrapped; a shell
    command's output and status; any other failed call (`status: error`, or an `error` response)
    failed with no number; a cancelled call never ran."""
    pieces = [response_text(p) for p in parts if isinstance(p, dict) and "functionResponse" in p]
    text = "\n".join(unwrap(t) for t, _ in pieces)
    failed = call.get("status") == "error" or any(error for _, error in pieces)
    code, timed_out = (FAILED_STATUS_UNKNOWN if failed else None), False
    if action.tool == Tool.BASH:
        stopped = text.startswith(NO_STATUS)  # cancelled, timed out or backgrounded: no status
        text, shell_code, timed_out = shell_result(text)
        code = shell_code if shell_code is not None or stopped else code
    return Obs(text, code, kind=action.kind, timed_out=timed_out, executed=call.get("status") != "cancelled")


def gemini_steps(messages: list[dict]) -> list[NStep]:
    responses: dict[str, list] = {}  # call id → the function response a later user message sent back
    for message in messages:
        if message.get("type") == "user" and isinstance(message.get("content"), list):
            for part in message["content"]:
                if isinstance(part, dict) and isinstance(part.get("functionResponse"), dict):
                    sent = responses.setdefault(str(part["functionResponse"].get("id")), [])
                    if part not in sent:  # the CLI may send one response back in several user messages
                        sent.append(part)
    steps: list[NStep] = []
    for message in messages:
        if message.get("type") != "gemini":
            continue
        content = message.get("content")
        text = text_of([p for p in content if isinstance(p, dict) and not p.get("thought")]) \
            if isinstance(content, list) else text_of(content)
        step = NStep(len(steps) + 1, text)
        for call in message.get("toolCalls") or content_calls(content):
            if not isinstance(call, dict):
                raise TypeError("a toolCalls entry is not an object")
            action = gemini_action(str(call.get("name", "")), call.get("args"))
            step.actions.append(action)
            parts = call.get("result") if isinstance(call.get("result"), list) else responses.get(str(call.get("id")))
            if parts:
                step.observations.append(call_obs(call, action, parts))
        steps.append(step)
    return steps


def content_calls(content) -> list[dict]:
    """A model turn kept as the Gemini API's content (a chat saved from the CLI's history): its calls
    are `functionCall` parts, their results `functionResponse` parts of the user messages after it."""
    if not isinstance(content, list):
        return []
    return [part["functionCall"] for part in content
            if isinstance(part, dict) and isinstance(part.get("functionCall"), dict)]


def from_gemini_cli(records: list[dict], path: Path) -> NTrajectory:
    if not any(is_gemini_record(r) for r in records):
        raise ImportProblem(f"{path}: not a Gemini CLI session (no session header and no `gemini` message)")
    meta, messages = replay(records)
    model = next((str(m["model"]) for m in messages if m.get("type") == "gemini" and m.get("model")), "unknown")
    steps = gemini_steps(messages)
    return NTrajectory(run_id=str(meta.get("sessionId") or path.stem), source="gemini-cli", path=str(path),
                       model=model, condition=None, task=path.stem, steps=steps, ending=verdict_of(steps))
