"""Qwen Code session files (`~/.qwen/projects/<cwd, / as ->/chats/<session>.jsonl`): one record a
line, `{uuid, parentUuid, sessionId, timestamp, type: user|assistant|tool_result|system, message{role,
parts}, toolCallResult…}`, the parts Gemini-style (`text`, `functionCall`, `functionResponse`). As
for Claude Code (LABELING.md §5), a step is a maximal run of consecutive `assistant` records (system
records between them do not break it); its actions are the `functionCall` parts; its observations
the `functionResponse` parts of the `tool_result` records that follow, up to the next assistant
record, one per part. A `user` record (the human's prompt) ends the run and is no observation;
`system` records (telemetry, snapshots) are neither."""

from __future__ import annotations

from pathlib import Path

from impasse.analysis.formats.common import (
    FAILED_STATUS_UNKNOWN,
    ImportProblem,
    verdict_action,
    verdict_of,
)
from impasse.analysis.formats.gemini_cli import response_text, shell_or_file_action
from impasse.analysis.normal_form import OTHER, Action, NStep, NTrajectory, Obs
from impasse.dialects.gemini_cli import EMPTY, NONE, QWEN_NO_STATUS, QWEN_SHELL, QWEN_TIMED_OUT, status_of
from impasse.vocabulary import Tool

RECORD_TYPES = ("user", "assistant", "tool_result", "system")


def is_qwen_record(record: dict) -> bool:
    """A line only a Qwen Code session has: a record whose message carries Gemini-style `parts`."""
    message = record.get("message")
    return record.get("type") in RECORD_TYPES and isinstance(message, dict) and isinstance(message.get("parts"), list)


def qwen_action(name: str, args) -> Action:
    args = args if isinstance(args, dict) else {"raw": args}
    if verdict := verdict_action(name, args):
        return verdict
    return shell_or_file_action(name, args, "edit")


def shell_result(text: str, display) -> tuple[str, int | None, bool]:
    """(the command's output, its exit code, timed out): the `Output:` section (with the `Error:`
    line when there is one), the status from the structured `resultDisplay.exitCode`, else the
    `Exit Code:` line; a signal without a status is a failure with no number. A cancelled or
    timed-out command records no status."""
    recorded = display.get("exitCode") if isinstance(display, dict) else None
    recorded = recorded if isinstance(recorded, int) and not isinstance(recorded, bool) else None
    if text.startswith(QWEN_NO_STATUS):
        return text, recorded, text.startswith(QWEN_TIMED_OUT)
    found = QWEN_SHELL.match(text)
    if not found:
        return text, recorded, False
    output = "" if found["output"] == EMPTY else found["output"]
    if found["error"] != NONE:
        output = f"{output}\nError: {found['error']}" if output else f"Error: {found['error']}"
    code = recorded if recorded is not None else status_of(found["code"])
    if code is None and found["signal"] != NONE:
        code = FAILED_STATUS_UNKNOWN
    return output, code, False


def result_obs(part: dict, action: Action | None, result) -> Obs:
    """A functionResponse part: its text; a shell command's output and status (none for a command
    cancelled or timed out); any other failed call (`toolCallResult.status: error`, or an `error`
    response) failed with no number; a cancelled one never ran."""
    text, error = response_text(part)
    result = result if isinstance(result, dict) else {}
    failed = error or result.get("status") == "error"
    code, timed_out = (FAILED_STATUS_UNKNOWN if failed else None), False
    if action is not None and action.tool == Tool.BASH:
        stopped = text.startswith(QWEN_NO_STATUS)  # cancelled or timed out: no status, though Qwen says `error`
        text, shell_code, timed_out = shell_result(text, result.get("resultDisplay"))
        code = shell_code if shell_code is not None or stopped else code
    return Obs(text, code, kind=action.kind if action else OTHER, timed_out=timed_out,
               executed=result.get("status") != "cancelled")


def qwen_steps(records: list[dict]) -> list[NStep]:
    steps: list[NStep] = []
    calls: dict[str, Action] = {}  # functionCall id → its action
    in_reply = False
    for record in records:
        if not is_qwen_record(record) or record["type"] == "system":
            continue
        parts = [p for p in record["message"]["parts"] if isinstance(p, dict)]
        if record["type"] == "assistant":
            if not in_reply:
                steps.append(NStep(len(steps) + 1, ""))
                in_reply = True
            step = steps[-1]
            for part in parts:
                if isinstance(part.get("text"), str) and part["text"] and not part.get("thought"):
                    step.text = f"{step.text}\n{part['text']}" if step.text else part["text"]
                elif isinstance(part.get("functionCall"), dict):
                    call = part["functionCall"]
                    action = qwen_action(str(call.get("name", "")), call.get("args"))
                    step.actions.append(action)
                    calls[str(call.get("id"))] = action
            continue
        in_reply = False
        if record["type"] != "tool_result" or not steps:
            continue  # a human prompt ends the run and is no observation
        for part in parts:
            if isinstance(part.get("functionResponse"), dict):
                action = calls.get(str(part["functionResponse"].get("id")))
                steps[-1].observations.append(result_obs(part, action, record.get("toolCallResult")))
    return steps


def from_qwen_code(records: list[dict], path: Path) -> NTrajectory:
    if not any(is_qwen_record(r) for r in records):
        raise ImportProblem(f"{path}: not a Qwen Code session (no record with a message of `parts`)")
    model = next((str(r["model"]) for r in records if r.get("type") == "assistant" and r.get("model")), "unknown")
    session = next((str(r["sessionId"]) for r in records if r.get("sessionId")), path.stem)
    steps = qwen_steps(records)
    return NTrajectory(run_id=session, source="qwen-code", path=str(path), model=model, condition=None,
                       task=path.stem, steps=steps, ending=verdict_of(steps))

