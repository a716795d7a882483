"""impasse's four tools as Inspect tools, in the words `impasse run` offers them (episode/tools.py):
bash and edit_file carried out by the sample's impasse sandbox as the agent, their results read as
impasse's model reads them; task_complete and escalate_to_human record the ending the agent chose
(the solver stops there, as impasse's loop does), unless the eval's operator answers the escalation
(inspect_ext/operating.py)."""

from __future__ import annotations

from inspect_ai.tool import ToolDef
from inspect_ai.util import sandbox, store

from impasse.episode.tools import TOOLS
from impasse.inspect_ext.operating import consult
from impasse.inspect_ext.sandbox import ImpasseSandbox
from impasse.vocabulary import Ending, Tool

ENDING = "impasse_ending"  # the store key of the verdict the agent called: {"kind": …, "message": …}
STEPS = "impasse_steps"  # the store key of the steps taken
OFFERED = {t["function"]["name"]: t["function"] for t in TOOLS}


def described(name: str, run) -> ToolDef:
    spec = OFFERED[name]
    properties = spec["parameters"]["properties"]
    return ToolDef(run, name=name, description=spec["description"],
                   parameters={key: value["description"] for key, value in properties.items()})


def impasse_tools() -> list[ToolDef]:
    async def bash(command: str) -> str:
        return await sandbox().as_type(ImpasseSandbox).tool(Tool.BASH, {"command": command})

    async def edit_file(path: str, old_str: str, new_str: str) -> str:
        return await sandbox().as_type(ImpasseSandbox).tool(
            Tool.EDIT_FILE, {"path": path, "old_str": old_str, "new_str": new_str})

    async def task_complete(summary: str) -> str:
        return verdict(Tool.TASK_COMPLETE, summary)

    async def escalate_to_human(reason: str) -> str:
        live = sandbox().as_type(ImpasseSandbox).live
        if live.operator is None:
            return verdict(Tool.ESCALATE_TO_HUMAN, reason)
        answer = await consult(live, reason, store().get(STEPS, 0))
        if answer.ending is not None:
            ended(answer.ending, answer.message)
        return answer.text

    runs = {Tool.BASH: bash, Tool.EDIT_FILE: edit_file, Tool.TASK_COMPLETE: task_complete,
            Tool.ESCALATE_TO_HUMAN: escalate_to_human}
    return [described(str(name), run) for name, run in runs.items()]


def verdict(kind: Tool, message: str) -> str:
    ended(Ending(str(kind)), message)
    return "ok"


def ended(kind: Ending, message: str) -> None:
    """The first ending is the one that counts, as in impasse's loop."""
    if store().get(ENDING) is None:
        store().set(ENDING, {"kind": str(kind), "message": message})
