"""Google Antigravity's trajectories (`transcript.jsonl`): one record a line, `{step_index, source,
type, status, created_at, content, tool_calls}`. The model's own records are `MODEL`
`PLANNER_RESPONSE`s (its words in `content`, its calls in `tool_calls`, each `{name, args}` with every
argument a JSON text) and the results of those calls, one record each, in the order of the calls, typed
by what the call did (`RUN_COMMAND`, `VIEW_FILE`, `CODE_ACTION`, `GREP_SEARCH`, …). A `USER_EXPLICIT`
`USER_INPUT` is the human; the system's own records (its reminders, the history it kept, a background
task's later notice) and what the human ran himself are neither step nor observation, but the
system's error record (`ERROR_MESSAGE`) is the agent's to see.

As for Claude Code (LABELING.md §5), a step is a maximal run of planner records, its calls the
actions; the result records after it, up to the next planner record, its observations."""

from __future__ import annotations

import json
from collections import deque
from pathlib import Path

from impasse.analysis.formats.common import (
    FAILED_STATUS_UNKNOWN,
    ImportProblem,
    edit_action,
    other_action,
)
from impasse.analysis.formats.reply_runs import ReplyRuns
from impasse.analysis.normal_form import COMMAND, OTHER, Action, NTrajectory, Obs
from impasse.dialects.antigravity import STEP_ERROR, command_result, result_text
from impasse.vocabulary import Tool

SOURCES = ("MODEL", "SYSTEM", "USER_EXPLICIT")
PLANNER = "PLANNER_RESPONSE"
HUMAN = "USER_INPUT"
SYSTEM_ERROR = "ERROR_MESSAGE"
# Its editing tools: the file and the new text, by argument name
EDITS = {"write_to_file": "CodeContent", "replace_file_content": "ReplacementContent",
         "multi_replace_file_content": "ReplacementChunks"}


def is_antigravity_record(record: dict) -> bool:
    return ("step_index" in record and record.get("source") in SOURCES and isinstance(record.get("type"), str)
            and "status" in record)


def arguments(raw) -> dict:
    """A call's arguments, each a JSON text as Antigravity keeps it, read back to its value."""
    args = raw if isinstance(raw, dict) else {}
    return {key: json_value(value) for key, value in args.items()}


def json_value(value):
    if not isinstance(value, str):
        return value
    try:
        return json.loads(value)
    except json.JSONDecodeError:
        return value


def antigravity_action(name: str, args: dict) -> Action:
    if name == "run_command":
        return Action(Tool.BASH, command=str(args.get("CommandLine") or ""))
    if name in EDITS:
        content = args.get(EDITS[name])
        return edit_action(args.get("TargetFile"), content if isinstance(content, str) else json.dumps(content))
    return other_action(name, args)


def result_obs(record: dict, action: Action | None) -> Obs:
    """A result record: its text; a command's status where the tool says it, none for one gone to the
    background; a step the agent could not carry out failed with no number."""
    text = result_text(str(record.get("content") or record.get("error") or ""))
    kind = action.kind if action else OTHER
    if record.get("status") == "ERROR" or STEP_ERROR.match(text):
        return Obs(text.strip(), FAILED_STATUS_UNKNOWN, kind=kind)
    if action is not None and action.tool == Tool.BASH:
        read = command_result(text)
        return Obs(read[0], read[1], kind=COMMAND) if read else Obs(text.strip(), None, kind=COMMAND)
    return Obs(text, None, kind=kind)


def antigravity_runs(records: list[dict]) -> ReplyRuns:
    runs, pending = ReplyRuns(), deque()
    for record in records:
        source, kind = record.get("source"), record.get("type")
        if source == "MODEL" and kind == PLANNER:
            if not runs.in_reply:
                pending.clear()
            if record.get("content"):
                runs.say(str(record["content"]))
            runs.reply()
            for call in record.get("tool_calls") or []:
                if isinstance(call, dict):
                    action = antigravity_action(str(call.get("name", "")), arguments(call.get("args")))
                    runs.reply().actions.append(action)
                    pending.append(action)
        elif source == "MODEL" or (source == "SYSTEM" and kind == SYSTEM_ERROR):
            runs.answer(result_obs(record, pending.popleft() if pending and source == "MODEL" else None))
        elif source == "USER_EXPLICIT" and kind == HUMAN:
            runs.human()
    return runs


def from_antigravity(records: list[dict], path: Path) -> NTrajectory:
    if not any(is_antigravity_record(r) and r.get("type") == PLANNER for r in records):
        raise ImportProblem(f"{path}: not an Antigravity trajectory (no planner record)")
    return antigravity_runs(records).trajectory(path, "antigravity")
