"""pi's session files (badlogic/pi-mono's coding agent, and harnesses built on it): one entry a line,
a `session {version, id, cwd}` header, then `message` entries whose `message` is the model API's own
(`user`, `assistant` with `text` and `toolCall` parts, `toolResult {toolCallId, toolName, content,
isError}`), among the harness's own (`model_change`, `custom`, `custom_message`, …). As for Claude
Code (LABELING.md §5), a step is a maximal run of `assistant` messages, its calls the actions; the
`toolResult` messages after it, up to the next assistant message, its observations, one a call. A
`user` message (the human) ends the run and is no observation; the harness's own entries are neither."""

from __future__ import annotations

from pathlib import Path

from impasse.analysis.formats.common import (
    FAILED_STATUS_UNKNOWN,
    ImportProblem,
    bash_action,
    command_of,
    named_action,
    one_object,
    text_of,
    tool_kind,
    verdict_of,
)
from impasse.analysis.formats.reply_runs import ReplyRuns
from impasse.analysis.normal_form import COMMAND, OTHER, Action, NStep, NTrajectory, Obs
from impasse.dialects.pi import (
    ABORTED,
    FAILED_STATUSES,
    STATUS_LINE,
    TIMED_OUT,
    harness_details,
    is_delivery_mirror,
    model_words,
)
from impasse.vocabulary import Tool

ROLES = ("user", "assistant", "toolResult")


def is_pi_entry(record: dict) -> bool:
    """A line only a pi session has: its header, or a `message` entry around an API message."""
    if record.get("type") == "session":
        return "cwd" in record and "version" in record
    message = record.get("message")
    return record.get("type") == "message" and isinstance(message, dict) and message.get("role") in ROLES


def result_obs(message: dict, action: Action | None) -> Obs:
    """A toolResult: its text; a failed call failed with no number, but a bash command's own status
    line gives the number, and a command timed out or aborted ended with none; a bash command that did
    not fail exited 0 (pi fails every other). Where a harness on pi records the command's status and
    exit code beside it (OpenClaw's `details`), those; an error's own text, not its JSON."""
    status, error, code = harness_details(message)
    text = (error or text_of(message.get("content"))).replace("\r\n", "\n")
    failed = bool(message.get("isError")) or status in FAILED_STATUSES or tool_error(text)
    kind = action.kind if action else OTHER
    if kind != COMMAND or action is None or action.tool != Tool.BASH:
        return Obs(text, FAILED_STATUS_UNKNOWN if failed else None, kind=kind)
    if status == "running":  # sent to the background: no status yet
        return Obs(text, None, kind=kind)
    if code is not None:
        return Obs(text, code, kind=kind)
    if not failed:
        return Obs(text, 0, kind=kind)
    if found := STATUS_LINE.search(text):
        return Obs(text, int(found.group(1)), kind=kind)
    if TIMED_OUT.search(text) or ABORTED.search(text):
        return Obs(text, None, kind=kind, timed_out=TIMED_OUT.search(text) is not None)
    return Obs(text, FAILED_STATUS_UNKNOWN, kind=kind)


def tool_error(text: str) -> bool:
    """A result that is a tool's own error object (`{"error": "missing_brave_api_key", "message": …}`)."""
    found = one_object(text) if text.lstrip().startswith("{") else None
    return found is not None and isinstance(found.get("error"), str) and bool(found["error"])


def pi_action(name: str, args) -> Action:
    """pi's `bash`, and the command tools of the harnesses built on it (OpenClaw's `exec`), as commands;
    `edit` and `write` as edits of the file under any of their path keys; any other tool by name."""
    if name != "bash" and tool_kind(name, args) == COMMAND and (command := command_of(args)):
        return bash_action(command)
    return named_action(name, args, paths=("path", "file_path", "file"))


def pi_steps(records: list[dict]) -> list[NStep]:
    runs = ReplyRuns()
    for record in records:
        message = record.get("message") if record.get("type") == "message" else None
        role = message.get("role") if isinstance(message, dict) else None
        if role == "assistant" and is_delivery_mirror(message):  # the harness's copy of a reply already read
            continue
        if role == "assistant":
            content = message.get("content")
            parts = content if isinstance(content, list) else [{"type": "text", "text": text_of(content)}]
            runs.reply()
            for part in (p for p in parts if isinstance(p, dict)):
                if part.get("type") == "text" and (said := model_words(str(part.get("text") or ""))):
                    runs.say(said)
                elif part.get("type") == "toolCall":
                    runs.call(part.get("id"), pi_action(str(part.get("name", "")), part.get("arguments")))
        elif role == "toolResult":
            runs.answer(result_obs(message, runs.called(message.get("toolCallId"))))
        elif role == "user":
            runs.human()
    return runs.steps


def from_pi(records: list[dict], path: Path) -> NTrajectory:
    if not any(is_pi_entry(r) for r in records):
        raise ImportProblem(f"{path}: not a pi session (no `session` header and no `message` entry)")
    header = next((r for r in records if r.get("type") == "session"), {})
    model = next((str(r["message"]["model"]) for r in records if is_pi_entry(r) and r.get("type") == "message"
                  and r["message"].get("role") == "assistant" and r["message"].get("model")), "unknown")
    steps = pi_steps(records)
    return NTrajectory(run_id=str(header.get("id") or path.stem), source="pi", path=str(path), model=model,
                       condition=None, task=path.stem, steps=steps, ending=verdict_of(steps))
