"""impasse's verdict tools, called by an external agent through impasse's MCP server, read back by
the importers as the verdicts they are (and as the trajectory's ending)."""

from __future__ import annotations

import json
from pathlib import Path

from impasse.analysis.formats.claude_code import from_claude_code
from impasse.analysis.formats.codex import from_codex
from impasse.analysis.formats.common import verdict_action
from impasse.vocabulary import Ending, Tool

REASON = "The files are owned by root: permission denied."


def test_only_impasse_servers_verdict_tools_are_verdicts():
    assert verdict_action("mcp__impasse__escalate_to_human", {"reason": REASON}).tool == Tool.ESCALATE_TO_HUMAN
    assert verdict_action("mcp__impasse__escalate_to_human", {"reason": REASON}).message == REASON
    assert verdict_action("task_complete", {"summary": "done"}, "mcp__impasse").message == "done"
    assert verdict_action("mcp__other__escalate_to_human", {"reason": REASON}) is None
    assert verdict_action("escalate_to_human", {"reason": REASON}) is None  # no server: not impasse's
    assert verdict_action("mcp__impasse__teleport", {}) is None


def test_claude_code_session_ends_by_its_mcp_escalation(tmp_path):
    records = [
        {"type": "assistant", "sessionId": "s", "message": {"model": "m", "content": [
            {"type": "tool_use", "id": "t1", "name": "mcp__impasse__escalate_to_human", "input": {"reason": REASON}}]}},
        {"type": "user", "message": {"content": [{"type": "tool_result", "tool_use_id": "t1", "content": "ok"}]}}]
    trajectory = from_claude_code(records, Path(tmp_path / "s.jsonl"))
    assert trajectory.ending == Ending.ESCALATE_TO_HUMAN
    assert [(a.tool, a.message) for a in trajectory.steps[0].actions] == [(Tool.ESCALATE_TO_HUMAN, REASON)]


def test_codex_rollout_ends_by_its_namespaced_mcp_completion(tmp_path):
    call = {"type": "function_call", "name": "task_complete", "namespace": "mcp__impasse", "call_id": "c1",
            "arguments": json.dumps({"summary": "Fixed."})}
    records = [{"type": "session_meta", "payload": {"id": "r"}}, {"type": "response_item", "payload": call},
               {"type": "response_item", "payload": {"type": "function_call_output", "call_id": "c1", "output": "ok"}}]
    trajectory = from_codex(records, Path(tmp_path / "r.jsonl"))
    assert trajectory.ending == Ending.TASK_COMPLETE
    assert trajectory.steps[0].actions[0].message == "Fixed."
