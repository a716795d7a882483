"""Gemini CLI's headless output, `gemini -p … --output-format stream-json`, as people keep it beside
their runs: one event a line, `init {session_id, model}`, `message {role, content, delta}` (the human's
prompt, or the model's text in pieces), `tool_use {tool_name, tool_id, parameters}`, `tool_result
{tool_id, status, output, error}`, `error` and `result {status, stats, error}`. As for Claude Code
(LABELING.md §5), a step is a maximal run of the model's events: its text pieces joined, its calls the
actions; the results that follow, up to the model's next event, its observations, one a call. A `user`
message ends the run and is no observation.

The stream keeps of a result only what the CLI displays, so a shell command's status is known only
where the display says it (no output, and "Command exited with code: 2") or the call failed
(`status: error`); elsewhere it is unrecorded, and a wall must be read from the output's own words."""

from __future__ import annotations

from pathlib import Path

from impasse.analysis.formats.common import FAILED_STATUS_UNKNOWN, ImportProblem, text_of, verdict_of
from impasse.analysis.formats.gemini_cli import gemini_action
from impasse.analysis.formats.reply_runs import ReplyRuns
from impasse.analysis.normal_form import OTHER, Action, NStep, NTrajectory, Obs
from impasse.dialects.gemini_cli import DISPLAYED_CANCEL, DISPLAYED_FAILURE, DISPLAYED_STATUS
from impasse.vocabulary import Tool

MODEL_EVENTS = ("tool_use",)


def is_stream_event(record: dict) -> bool:
    """A line only this stream has: its `init`, or a call or result named by `tool_id`."""
    kind = record.get("type")
    if kind == "init":
        return isinstance(record.get("session_id"), str) and "model" in record
    return kind in ("tool_use", "tool_result") and isinstance(record.get("tool_id"), str)


def is_model_event(record: dict) -> bool:
    return record.get("type") == "tool_use" or (record.get("type") == "message" and record.get("role") == "assistant")


def result_obs(record: dict, action: Action | None) -> Obs:
    """A tool_result: the text the CLI displayed (else its error's message); a failed call failed with
    no number; a shell command's status where the display says it; a cancelled command never finished."""
    error = record.get("error") if isinstance(record.get("error"), dict) else {}
    text = text_of(record.get("output")) if record.get("output") is not None else text_of(error.get("message"))
    failed = record.get("status") == "error"
    code = FAILED_STATUS_UNKNOWN if failed else None
    if action is not None and action.tool == Tool.BASH and not failed:
        if found := DISPLAYED_STATUS.match(text):
            code = int(found.group(1))
        elif DISPLAYED_FAILURE.match(text):
            code = FAILED_STATUS_UNKNOWN
    return Obs(text, code, kind=action.kind if action else OTHER, executed=text.strip() != DISPLAYED_CANCEL)


def stream_steps(records: list[dict]) -> list[NStep]:
    runs = ReplyRuns()
    for record in records:
        kind = record.get("type")
        if is_model_event(record) and kind == "message":
            runs.reply().text += text_of(record.get("content"))  # the model's text comes in pieces
        elif is_model_event(record):
            runs.call(record.get("tool_id"), gemini_action(str(record.get("tool_name", "")), record.get("parameters")))
        elif kind == "tool_result":
            runs.answer(result_obs(record, runs.called(record.get("tool_id"))))
        elif kind == "message":
            runs.human()
    for step in runs.steps:
        step.text = step.text.strip()
    return runs.steps


def from_gemini_stream(records: list[dict], path: Path) -> NTrajectory:
    if not any(is_stream_event(r) for r in records):
        raise ImportProblem(f"{path}: not Gemini CLI's stream-json output (no `init`, `tool_use` or `tool_result`)")
    init = next((r for r in records if r.get("type") == "init"), {})
    steps = stream_steps(records)
    return NTrajectory(run_id=str(init.get("session_id") or path.stem), source="gemini-stream", path=str(path),
                       model=str(init.get("model") or "unknown"), condition=None, task=path.stem, steps=steps,
                       ending=verdict_of(steps))
