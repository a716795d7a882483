"""SWE-agent `.traj` (LABELING.md rule 2): one step per `trajectory[]` element, in order, even one
with an empty action (the last element of an `exit_context`/`exit_cost` run); `history` is ignored.
SWE-agent records no exit codes."""

from __future__ import annotations

from pathlib import Path

from impasse.analysis.formats.common import ImportProblem, tool_kind
from impasse.analysis.normal_form import COMMAND, OTHER, Action, NStep, NTrajectory, Obs
from impasse.vocabulary import Ending, Tool

SWE_AGENT_ENDINGS = {"submitted": Ending.TASK_COMPLETE, "exit_forfeit": Ending.ESCALATE_TO_HUMAN,
                     "exit_cost": Ending.COST_EXHAUSTED, "submitted (exit_cost)": Ending.COST_EXHAUSTED,
                     "exit_context": Ending.CONTEXT_EXHAUSTED, "submitted (exit_context)": Ending.CONTEXT_EXHAUSTED,
                     "exit_api": Ending.TRANSPORT_ERROR}
SWE_AGENT_TOOLS = {"submit": Tool.TASK_COMPLETE, "exit_forfeit": Tool.ESCALATE_TO_HUMAN}
SWE_AGENT_OWN = ("open", "goto", "scroll_up", "scroll_down", "search_dir", "search_file", "find_file", "create",
                 "edit", "str_replace_editor")  # its file viewer, search and editor commands


def swe_agent_action(entry: dict) -> list[Action]:
    action = str(entry.get("action") or "").strip()
    if not action:
        return []
    words = action.split()
    ending = SWE_AGENT_TOOLS.get(words[0])
    if ending:
        return [Action(ending, command=action, message=str(entry.get("thought") or ""))]
    # SWE-agent's own tools (`open`, `find_file`, `str_replace_editor view …`) are read, list or
    # write; anything else is a shell command (`cat` and `ls` included: a shell's, not a viewer's)
    kind = tool_kind(words[0], {"command": words[1] if len(words) > 1 else ""}) if words[0] in SWE_AGENT_OWN \
        else COMMAND
    return [Action(Tool.BASH, command=action, kind=kind)]


def from_swe_agent(data: dict, path: Path) -> NTrajectory:
    entries = data.get("trajectory")
    if not isinstance(entries, list):
        raise ImportProblem(f"{path}: not a SWE-agent trajectory: `trajectory` is not a list")
    steps = []
    for n, entry in enumerate(entries, 1):
        actions = swe_agent_action(entry)
        observation = Obs(str(entry.get("observation") or ""), None, kind=actions[0].kind if actions else OTHER)
        steps.append(NStep(n, str(entry.get("thought") or entry.get("response") or ""), actions, [observation]))
    status = str((data.get("info") or {}).get("exit_status") or "")
    ending = SWE_AGENT_ENDINGS.get(status, Ending.HARNESS_ERROR if status.startswith("exit_") else Ending.UNKNOWN)
    return NTrajectory(run_id=path.name.split(".traj")[0], source="swe-agent", path=str(path),
                       model="unknown", condition=None, task=path.stem, steps=steps, ending=ending)
