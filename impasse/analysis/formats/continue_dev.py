"""Continue's saved sessions (`~/.continue/sessions/<id>.json`): one JSON object, `{sessionId, title,
workspaceDirectory, history, mode, chatModelTitle}`, each `history` item a `message` in OpenAI's chat
form with Continue's own keys (an assistant's `toolCalls`, a tool message's `toolCallId`; the model's
reasoning a message of its own, `role: thinking`) beside the item's `toolCallStates` (each call's
state, and its output as Continue's panel shows it, a terminal's status included).

Read as a session export's messages (LABELING.md rule 7): a step is a run of assistant messages, the
reasoning between them not said to anyone and left out; a command's status is the one its state says
(`dialects/continue_dev.py`); a call the human canceled has no result, and the human's message after it
ends the turn."""

from __future__ import annotations

from pathlib import Path

from impasse.analysis.formats.chat_export import export_steps
from impasse.analysis.formats.common import ImportProblem, verdict_of
from impasse.analysis.normal_form import NTrajectory
from impasse.dialects.continue_dev import terminal_status

REASONING = "thinking"


def is_continue_session(data) -> bool:
    history = data.get("history") if isinstance(data, dict) else None
    return isinstance(history, list) and "sessionId" in data and \
        any(isinstance(item, dict) and isinstance(item.get("message"), dict) for item in history[:50])


def call_statuses(item: dict) -> dict[str, int]:
    """Each call's exit code, by call id, where its state's output says one."""
    statuses = {}
    for state in item.get("toolCallStates") or []:
        outputs = state.get("output") if isinstance(state, dict) else None
        for output in outputs if isinstance(outputs, list) else []:
            if isinstance(output, dict) and (code := terminal_status(str(output.get("status") or ""))) is not None:
                statuses[str(state.get("toolCallId"))] = code
    return statuses


def chat_messages(data) -> list[dict]:
    """The history as chat messages in OpenAI's keys, a command's status beside its result's text."""
    messages, statuses = [], {}
    for item in data.get("history") or []:
        message = item.get("message") if isinstance(item, dict) else None
        if not isinstance(message, dict) or message.get("role") == REASONING:
            continue
        statuses.update(call_statuses(item))
        role, content = message.get("role"), message.get("content")
        if role == "assistant":
            calls = [{"id": c.get("id"), "function": c.get("function")} for c in message.get("toolCalls") or []
                     if isinstance(c, dict)]
            messages.append({"role": role, "content": content, "tool_calls": calls})
        elif role == "tool":
            call_id = str(message.get("toolCallId"))
            messages.append({"role": role, "content": content, "tool_call_id": call_id,
                             "exit_code": statuses.get(call_id)})
        else:
            messages.append({"role": role, "content": content})
    return messages


def from_continue(data, path: Path) -> NTrajectory:
    if not is_continue_session(data):
        raise ImportProblem(f"{path}: not a Continue session (no `history` of messages)")
    steps = export_steps(chat_messages(data))
    return NTrajectory(run_id=str(data.get("sessionId") or path.stem), source="continue", path=str(path),
                       model=str(data.get("chatModelTitle") or "unknown"), condition=None, task=path.stem,
                       steps=steps, ending=verdict_of(steps))
