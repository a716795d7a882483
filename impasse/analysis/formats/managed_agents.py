"""Claude Managed Agents' session events, one a line: the API's own events (`{type: "agent.message" |
"agent.thinking" | "agent.tool_use" | "agent.tool_result" | "user.message" | "user.interrupt" | … |
"session.*" | "span.*", id, …}`), bare or as a recorder keeps them, each the `raw` of a line of its own
(`{role, kind, content, tool, time, raw}`). As for Claude Code (LABELING.md §5), a step is a maximal run
of the agent's events (its messages, its thinking, its tool uses), its tool uses the actions; the tool
results after it, each answering its `tool_use_id`, its observations. A user event (a message, an
outcome to meet, an interrupt) is the human; the session's and the spans' events are bookkeeping."""

from __future__ import annotations

from pathlib import Path

from impasse.analysis.formats.common import (
    FAILED_STATUS_UNKNOWN,
    ImportProblem,
    named_action,
    text_of,
)
from impasse.analysis.formats.reply_runs import ReplyRuns
from impasse.analysis.normal_form import COMMAND, OTHER, Action, NTrajectory, Obs
from impasse.vocabulary import Tool

AGENT, USER = "agent.", "user."
OWN_EVENTS = ("session.", "span.")


def event_of(record: dict) -> dict:
    """The API's event: the record itself, or the `raw` a recorder kept it as."""
    raw = record.get("raw")
    return raw if isinstance(raw, dict) and isinstance(raw.get("type"), str) else record


def is_managed_event(record: dict) -> bool:
    kind = event_of(record).get("type")
    return isinstance(kind, str) and kind.startswith((AGENT, USER, *OWN_EVENTS)) and "id" in event_of(record)


def is_agent_event(record: dict) -> bool:
    return is_managed_event(record) and str(event_of(record)["type"]).startswith(AGENT)


def result_obs(event: dict, action: Action | None) -> Obs:
    """A tool result: its text; a failed one failed with no number (the events keep none), a bash
    command that did not fail exited 0."""
    text, failed = text_of(event.get("content")), bool(event.get("is_error"))
    kind = action.kind if action else OTHER
    if action is not None and action.tool == Tool.BASH:
        return Obs(text, FAILED_STATUS_UNKNOWN if failed else 0, kind=COMMAND)
    return Obs(text, FAILED_STATUS_UNKNOWN if failed else None, kind=kind)


def managed_runs(records: list[dict]) -> ReplyRuns:
    runs = ReplyRuns()
    for event in map(event_of, records):
        kind = str(event.get("type", ""))
        if kind in ("agent.message", "agent.thinking"):
            runs.reply()
            if text := text_of(event.get("content")).strip():
                runs.say(text)
        elif kind.endswith("tool_use") and kind.startswith(AGENT):
            runs.call(event.get("id"), named_action(str(event.get("name", "")), event.get("input")))
        elif kind.endswith("tool_result") and kind.startswith(AGENT):
            runs.answer(result_obs(event, runs.called(event.get("tool_use_id"))))
        elif kind.startswith(USER):
            runs.human()
    return runs


def from_managed_agents(records: list[dict], path: Path) -> NTrajectory:
    if not any(is_agent_event(r) for r in records):
        raise ImportProblem(f"{path}: not a Managed Agents session (no agent event)")
    return managed_runs(records).trajectory(path, "managed-agents")
