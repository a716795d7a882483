"""ATIF (`schema_version: ATIF-v1.x`): each `steps[]` entry with source "agent" is a step; tool
calls joined to `observation.results` by `source_call_id`. A result that names no call of its step
(Terminus-2's one terminal screen after a batch of keystrokes, ATIF-v1.5) is an observation of the
step all the same, in its place; so are the results a later non-agent entry carries, up to the next
agent step. impasse's own exports carry their condition, ending and truth under `extra.impasse`."""

from __future__ import annotations

import json
from pathlib import Path

from impasse.analysis.formats.common import ImportProblem, claim_action, command_of, text_of, tool_kind
from impasse.analysis.normal_form import COMMAND, OTHER, Action, NStep, NTrajectory, Obs
from impasse.vocabulary import TERMINAL_TOOLS, Tool, ending_of

ATIF_TOOLS = {Tool.TASK_COMPLETE: Tool.TASK_COMPLETE, "submit": Tool.TASK_COMPLETE,
              "mark_task_complete": Tool.TASK_COMPLETE,  # Terminus-2's own (Harbor)
              Tool.ESCALATE_TO_HUMAN: Tool.ESCALATE_TO_HUMAN}


def atif_action(call: dict) -> Action:
    arguments = call.get("arguments") or {}
    name = call.get("function_name", "")
    if name in ATIF_TOOLS:
        return Action(ATIF_TOOLS[name], message=str(arguments.get("summary") or arguments.get("reason") or ""))
    if claim := claim_action(name, arguments):
        return claim
    if name == Tool.EDIT_FILE:
        return Action(Tool.EDIT_FILE, path=str(arguments.get("path", "")), content=str(arguments.get("new_str", "")))
    # another harness's tool: run as a command (what impasse did before kinds), but of its own kind
    kind = tool_kind(name, arguments)
    return Action(Tool.BASH, command=command_of(arguments) or json.dumps(arguments),
                  kind=COMMAND if kind == OTHER else kind)


def result_obs(result: dict, actions: list[Action]) -> Obs:
    """A result as the observation of the call it answers (of the step's last call, when it names none)."""
    extra = result.get("extra") or {}
    return Obs(text_of(result.get("content")), extra.get("exit_code"), extra.get("injected"),
               kind=actions[-1].kind if actions else COMMAND)


def from_atif(data: dict, path: Path) -> NTrajectory:
    if not isinstance(data.get("steps"), list):
        raise ImportProblem(f"{path}: not an ATIF trajectory: `steps` is not a list")
    steps = []
    for entry in data["steps"]:
        results = [r for r in (entry.get("observation") or {}).get("results") or [] if isinstance(r, dict)]
        if entry.get("source") != "agent":
            if steps:  # what the environment returned before the next agent turn
                steps[-1].observations.extend(result_obs(r, steps[-1].actions) for r in results)
            continue
        calls = [c for c in entry.get("tool_calls") or [] if isinstance(c, dict)]
        actions = [atif_action(call) for call in calls]
        ids = {str(c.get("tool_call_id")): a for c, a in zip(calls, actions, strict=True)}
        observations = []
        for call, action in zip(calls, actions, strict=True):  # the calls' own results, in the calls' order
            observations.extend(result_obs(r, [action]) for r in results
                                if str(r.get("source_call_id")) == str(call.get("tool_call_id")))
        observations.extend(result_obs(r, actions) for r in results if str(r.get("source_call_id")) not in ids)
        steps.append(NStep(len(steps) + 1, entry.get("message") or "", actions, observations))
    extra = (data.get("extra") or {}).get("impasse", {})
    last = [a.tool for s in steps[-1:] for a in s.actions]
    ending = ending_of(extra.get("ending") or next((t for t in last if t in TERMINAL_TOOLS), None))
    return NTrajectory(run_id=str(data.get("session_id") or path.stem), source="atif", path=str(path),
                       model=str((data.get("agent") or {}).get("model_name") or "unknown"),
                       condition=extra.get("condition"), task=str(extra.get("task") or path.stem),
                       steps=steps, ending=ending, outcome=extra.get("outcome"), resolved=extra.get("resolved"),
                       blocker_active_at_end=extra.get("blocker_active_at_end"),
                       blocker_active_at_start=extra.get("blocker_active_at_start"),
                       tampering=[str(t.get("route")) for t in extra.get("tampering") or [] if isinstance(t, dict)])
