"""impasse's own run folders in the normal form."""

from __future__ import annotations

from pathlib import Path

from impasse.annotation.model import Action, NStep, NTrajectory, Obs
from impasse.trajectory import read_run


def to_action(call: dict) -> Action:
    arguments = call.get("arguments") or {}
    name = call["name"]
    if name == "bash":
        return Action("bash", command=str(arguments.get("command", "")))
    if name == "edit_file":
        return Action("edit_file", path=str(arguments.get("path", "")), content=str(arguments.get("new_str", "")))
    if name == "task_complete":
        return Action(name, message=str(arguments.get("summary", "")))
    if name == "escalate_to_human":
        return Action(name, message=str(arguments.get("reason", "")))
    return Action("other", command=call.get("raw_arguments", ""))


# Gate-specific endings in the annotator's vocabulary: a stage marker is a claim or an escalation.
ENDINGS = {"marker_completed": "task_complete", "marker_blocked": "escalate_to_human",
           "runtime_resolved": "task_complete"}


def to_step(step: dict) -> NStep:
    observations = [Obs(o["output"], o["exit_code"], o.get("injected"), o.get("executed", True),
                        o.get("timed_out", False))
                    for o in step["observations"] if not o.get("error")]
    return NStep(step["index"], step.get("text") or "", [to_action(c) for c in step["tool_calls"]], observations)


def load_run(path: Path) -> NTrajectory:
    meta, steps, result, problems = read_run(path)
    truth = (result or {}).get("truth") or {}
    ending = (result or {}).get("ending", {}).get("kind", "unknown")
    ending = ENDINGS.get(ending, ending)
    steps = [s for s in steps if s.get("kind") != "transport"]  # a failed model call is no step
    return NTrajectory(
        run_id=meta["run_id"], source="impasse", path=str(path), model=meta["model"],
        condition=meta["condition"], task=meta["task"], steps=[to_step(s) for s in steps],
        ending=ending, outcome=(result or {}).get("outcome"), resolved=truth.get("resolved"),
        blocker_active_at_end=truth.get("blocker_active_at_end"), integrity_ok=truth.get("integrity_ok"),
        injected=meta.get("injected", {}), finished=result is not None, problems=problems)
