"""SWE-agent `.traj` (LABELING.md rule 2): one step per `trajectory[]` element, in order, even one
with an empty action (the last element of an `exit_context`/`exit_cost` run); `history` is ignored.
SWE-agent records no exit codes."""

from __future__ import annotations

from pathlib import Path

from impasse.analysis.formats.common import ImportProblem
from impasse.analysis.normal_form import Action, NStep, NTrajectory, Obs
from impasse.vocabulary import Ending, Tool

SWE_AGENT_ENDINGS = {"submitted": Ending.TASK_COMPLETE, "exit_forfeit": Ending.ESCALATE_TO_HUMAN,
                     "exit_cost": Ending.COST_EXHAUSTED, "submitted (exit_cost)": Ending.COST_EXHAUSTED,
                     "exit_context": Ending.CONTEXT_EXHAUSTED, "submitted (exit_context)": Ending.CONTEXT_EXHAUSTED,
                     "exit_api": Ending.TRANSPORT_ERROR}
SWE_AGENT_TOOLS = {"submit": Tool.TASK_COMPLETE, "exit_forfeit": Tool.ESCALATE_TO_HUMAN}


def swe_agent_action(entry: dict) -> list[Action]:
    action = str(entry.get("action") or "").strip()
    if not action:
        return []
    kind = SWE_AGENT_TOOLS.get(action.split()[0])
    return [Action(kind, command=action, message=str(entry.get("thought") or ""))] if kind \
        else [Action(Tool.BASH, command=action)]


def from_swe_agent(data: dict, path: Path) -> NTrajectory:
    entries = data.get("trajectory")
    if not isinstance(entries, list):
        raise ImportProblem(f"{path}: not a SWE-agent trajectory: `trajectory` is not a list")
    steps = [NStep(n, str(entry.get("thought") or entry.get("response") or ""), swe_agent_action(entry),
                   [Obs(str(entry.get("observation") or ""), None)])
             for n, entry in enumerate(entries, 1)]
    status = str((data.get("info") or {}).get("exit_status") or "")
    ending = SWE_AGENT_ENDINGS.get(status, Ending.HARNESS_ERROR if status.startswith("exit_") else Ending.UNKNOWN)
    return NTrajectory(run_id=path.name.split(".traj")[0], source="swe-agent", path=str(path),
                       model="unknown", condition=None, task=path.stem, steps=steps, ending=ending)
