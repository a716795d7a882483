"""What `opencode run --format json` prints on stdout: one event a line, `{type, timestamp, sessionID,
part}`, of types `step_start`, `text`, `reasoning`, `tool_use` (a call that finished, `completed` or
`error`), `step_finish` and `error`. A step is one model call, from its `step_start` to its
`step_finish` (a part of another message with no `step_start` between also opens one); its
`tool_use` parts are its actions, each with its observation, and its `text` parts its words. An
event printed twice (the same part: its id and content) counts once; `error` events (the session's own) are no step.

What `opencode export <session>` writes, the session's `info` and its `messages` (each `{info,
parts}`, the parts named `step-start`, `tool`, `step-finish`…), is read as the events `opencode run`
would have printed for its assistant messages' parts (the human's messages print none); a call still
`running` or `pending` when the session was saved is an action with no observation."""

from __future__ import annotations

import re
from collections.abc import Iterator
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
from impasse.dialects.exit_line import unwrapped, without_exit_line
from impasse.vocabulary import Tool

EVENTS = ("step_start", "step_finish", "tool_use", "text", "reasoning")
MCP_PREFIX = "impasse_"  # opencode names an MCP tool `<server>_<tool>`
NO_OUTPUT = "(no output)"  # the bash tool's word for no output
# What the bash tool appends when it stopped the command (opencode 1.18.33, ShellTool.run).
SHELL_METADATA = re.compile(r"\n*<shell_metadata>\n(.*?)\n</shell_metadata>\s*\Z", re.S)
TIMED_OUT = "shell tool terminated command after exceeding timeout"
FINISHED = ("completed", "error")  # a call's states with a result (`pending` and `running` have none)
# An export's part types as `opencode run --format json` names their events.
EXPORT_PARTS = {"step-start": "step_start", "step-finish": "step_finish", "tool": "tool_use", "text": "text",
                "reasoning": "reasoning"}


def is_opencode_event(record: dict) -> bool:
    """A line only `opencode run --format json` prints: a step or part event with its session and part."""
    return record.get("type") in EVENTS and isinstance(record.get("part"), dict) and "sessionID" in record


def opencode_action(name: str, args) -> Action:
    args = args if isinstance(args, dict) else {"raw": args}
    if name.startswith(MCP_PREFIX) and (verdict := verdict_action(f"mcp__impasse__{name[len(MCP_PREFIX):]}", args)):
        return verdict
    if name == "bash":  # a scripted policy's command keeps the exit line impasse adds out (dialects/exit_line.py)
        return Action(Tool.BASH, command=unwrapped(command_of(args)))
    if name == "edit":
        return edit_action(args.get("filePath"), args.get("newString"))
    if name == "write":
        return edit_action(args.get("filePath"), args.get("content"))
    if name == "multiedit":
        return edit_action(args.get("filePath"), "\n".join(str(e.get("newString", "")) for e in
                                                           args.get("edits") or [] if isinstance(e, dict)))
    return other_action(name, args)


def tool_obs(state: dict, action: Action) -> Obs:
    """A finished call: a `completed` one's output (a command's with its `metadata.exit`, and without
    the `<shell_metadata>` note the bash tool adds when it stopped the command: a timeout, or the
    human aborting); an `error` one's error, failed with no number."""
    if state.get("status") == "error":
        return Obs(text_of(state.get("error")), FAILED_STATUS_UNKNOWN, kind=action.kind)
    output = text_of(state.get("output"))
    if action.tool != Tool.BASH:
        return Obs(output, None, kind=action.kind)
    note = SHELL_METADATA.search(output)
    if note:
        output = output[:note.start()]
    output = without_exit_line(output)  # without impasse's exit line, where a policy's command has one
    metadata = state.get("metadata") if isinstance(state.get("metadata"), dict) else {}
    code = metadata.get("exit")
    code = code if isinstance(code, int) and not isinstance(code, bool) else None
    return Obs("" if output == NO_OUTPUT else output, code, kind=action.kind,
               timed_out=bool(note and TIMED_OUT in note.group(1)))


def stepped_events(records: list[dict]) -> Iterator[tuple[bool, dict]]:
    """Each event once (a part equal to the first one of its id: an export that redacts its ids writes
    one id, `REDACTED`, for every part), and whether it opens a step: a `step_start`, the first event,
    or a part of another message."""
    seen: dict[str, dict] = {}  # the first part read of each id
    message = None  # the message the current step belongs to
    first = True
    for record in records:
        if not is_opencode_event(record):
            continue
        part = record["part"]
        first_of_its_id = part if part.get("id") is None else seen.setdefault(str(part["id"]), part)
        if first_of_its_id is not part and first_of_its_id == part:
            continue  # printed twice
        owner = part.get("messageID")
        yield record["type"] == "step_start" or first or (owner is not None and owner != message), record
        message, first = (owner if owner is not None else message), False


def opencode_steps(records: list[dict]) -> list[NStep]:
    steps: list[NStep] = []
    for opens, record in stepped_events(records):
        if opens:
            steps.append(NStep(len(steps) + 1, ""))
        part, kind, step = record["part"], record["type"], steps[-1]
        if kind == "text" and part.get("text"):
            step.text = f"{step.text}\n{part['text']}" if step.text else str(part["text"])
        elif kind == "tool_use":
            state = part.get("state") if isinstance(part.get("state"), dict) else {}
            action = opencode_action(str(part.get("tool", "")), state.get("input"))
            step.actions.append(action)
            if state.get("status") in FINISHED:
                step.observations.append(tool_obs(state, action))
    return steps


def from_opencode_json(data, path: Path) -> NTrajectory:
    """`opencode run --format json` events, or an `opencode export` (read as the events it holds)."""
    records = opencode_records(data)
    if not any(is_opencode_event(r) for r in records):
        raise ImportProblem(f"{path}: not `opencode run --format json` output or an `opencode export` (no step or "
                            "part event)")
    session = next((str(r["sessionID"]) for r in records if is_opencode_event(r) and r.get("sessionID")), path.stem)
    steps = opencode_steps(records)
    return NTrajectory(run_id=session, source="opencode", path=str(path), model=export_model(data), condition=None,
                       task=path.stem, steps=steps, ending=verdict_of(steps))

def is_opencode_export(data) -> bool:
    """What `opencode export` writes: the session's `info` and `messages` of `{info, parts}`."""
    if not isinstance(data, dict) or not isinstance(data.get("info"), dict):
        return False
    if not isinstance(data.get("messages"), list):
        return False
    return any(isinstance(m, dict) and isinstance(m.get("info"), dict) and isinstance(m.get("parts"), list)
               for m in data["messages"])


def export_events(data: dict) -> list[dict]:
    """An export's assistant parts as `opencode run --format json` events (`{type, timestamp,
    sessionID, part}`), in order; an assistant message's `error` as an `error` event after its parts."""
    events: list[dict] = []
    for message in data["messages"]:
        info = message.get("info") if isinstance(message, dict) and isinstance(message.get("info"), dict) else {}
        if info.get("role") != "assistant":
            continue
        session = info.get("sessionID") or data["info"].get("id")
        created = (info.get("time") or {}).get("created") if isinstance(info.get("time"), dict) else None
        for part in message.get("parts") or []:
            kind = EXPORT_PARTS.get(part.get("type")) if isinstance(part, dict) else None
            if kind is None:
                continue
            times = part.get("time") if isinstance(part.get("time"), dict) else {}
            events.append({"type": kind, "timestamp": times.get("start") or created, "sessionID": session,
                           "part": {**part, "messageID": part.get("messageID") or info.get("id")}})
        if isinstance(info.get("error"), dict):
            events.append({"type": "error", "timestamp": created, "sessionID": session, "error": info["error"]})
    return events


def opencode_records(data) -> list[dict]:
    """The events to read: the lines of `opencode run --format json`, or those an export holds."""
    return export_events(data) if is_opencode_export(data) else data


def export_model(data) -> str:
    """The model an export names (the session's, else its first assistant message's); unknown for events."""
    if not is_opencode_export(data):
        return "unknown"
    model = data["info"].get("model") if isinstance(data["info"].get("model"), dict) else {}
    return str(model.get("id") or next((m["info"]["modelID"] for m in data["messages"] if isinstance(m, dict)
                                        and isinstance(m.get("info"), dict) and m["info"].get("modelID")), "unknown"))
