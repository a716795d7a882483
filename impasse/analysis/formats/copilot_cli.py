"""GitHub Copilot CLI's session events (`~/.copilot/session-state/<id>/events.jsonl`: `{type, data,
id, timestamp, parentId}`), as kept or as another tool wraps each one (`{role, content, timestamp, raw:
<the event>}`). As for Claude Code (LABELING.md §5), a step is a maximal run of `assistant.message`
events (their `content`, their `toolRequests` the actions); the `tool.execution_complete` events after
it its observations, one a call. A `user.message` ends the run; hooks, turns and the session's own
events are neither step nor observation."""

from __future__ import annotations

from pathlib import Path

from impasse.analysis.formats.common import (
    FAILED_STATUS_UNKNOWN,
    ImportProblem,
    named_action,
    text_of,
)
from impasse.analysis.formats.reply_runs import ReplyRuns
from impasse.analysis.normal_form import OTHER, Action, NTrajectory, Obs
from impasse.dialects.copilot_cli import SHELL_READERS, SHELL_STATUS, STILL_RUNNING
from impasse.vocabulary import Tool

EVENTS = ("session.start", "assistant.message", "tool.execution_start", "tool.execution_complete", "user.message")


def event_of(record: dict) -> dict | None:
    event = record.get("raw") if isinstance(record.get("raw"), dict) else record
    return event if isinstance(event.get("data"), dict) and isinstance(event.get("type"), str) else None


def is_copilot_event(record: dict) -> bool:
    event = event_of(record)
    return event is not None and event["type"] in EVENTS and event["type"] != "session.start" or (
        event is not None and event["type"] == "session.start" and event["data"].get("producer") == "copilot-agent")


def copilot_action(name: str, args, shells: dict[str, str]) -> Action:
    """A call as impasse's tools; reading a detached shell is the command that shell runs (its output is
    that command's)."""
    if name in SHELL_READERS and isinstance(args, dict) and str(args.get("shellId")) in shells:
        return Action(Tool.BASH, command=shells[str(args["shellId"])])
    action = named_action(name, args, edits=("edit", "create"), paths=("path",), texts=("new_str", "file_text"))
    if action.tool == Tool.BASH and isinstance(args, dict) and args.get("shellId") is not None:
        shells[str(args["shellId"])] = action.command
    return action


def result_obs(data: dict, action: Action | None, shells: dict[str, str]) -> Obs:
    """A call's result: its text (a failed call's error); a failed call failed with no number; a bash
    command's status from the trailer its output ends with, none while it still runs (its shell noted)."""
    result = data.get("result") if isinstance(data.get("result"), dict) else {}
    error = data.get("error") if isinstance(data.get("error"), dict) else {}
    text = text_of(result.get("content")) if result else text_of(error.get("message"))
    code = None if data.get("success", True) else FAILED_STATUS_UNKNOWN
    if action is not None and action.tool == Tool.BASH and (found := SHELL_STATUS.search(text)):
        text, code = text[:found.start()], int(found.group(1))
    elif action is not None and action.tool == Tool.BASH and (running := STILL_RUNNING.search(text)):
        text, shells[running.group(1)] = text[:running.start()], action.command
    return Obs(text, code, kind=action.kind if action else OTHER)


def copilot_runs(events: list[dict]) -> ReplyRuns:
    runs, shells = ReplyRuns(), {}
    for event in events:
        kind, data = event["type"], event["data"]
        if kind == "assistant.message":
            runs.say(text_of(data.get("content")))
            for request in (r for r in data.get("toolRequests") or [] if isinstance(r, dict)):
                action = copilot_action(str(request.get("name", "")), request.get("arguments"), shells)
                runs.call(request.get("toolCallId"), action)
        elif kind == "tool.execution_complete":
            runs.answer(result_obs(data, runs.called(data.get("toolCallId")), shells))
        elif kind == "user.message":
            runs.human()
    return runs


def from_copilot_cli(records: list[dict], path: Path) -> NTrajectory:
    events = [e for e in map(event_of, records) if e is not None]
    if not any(is_copilot_event(r) for r in records):
        raise ImportProblem(f"{path}: not GitHub Copilot CLI's events (no assistant.message, no tool result)")
    start = next((e["data"] for e in events if e["type"] == "session.start"), {})
    model = next((str(e["data"]["model"]) for e in events if e["type"] == "assistant.message"
                  and e["data"].get("model")), "unknown")
    return copilot_runs(events).trajectory(path, "copilot-cli", model, str(start.get("sessionId") or path.stem))
