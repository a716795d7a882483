"""impasse's loop as an Inspect solver, as `impasse run` runs it under the default gate: one model turn a
step, its calls carried out in order, the episode over at the first verdict call, at a turn with no
call (the agent stopped), or when the step budget runs out. What it does not do that `impasse run`
does: the stage-report gates, the cost limit, the history views (docs/inspect.md)."""

from __future__ import annotations

from inspect_ai.model import execute_tools, get_model
from inspect_ai.solver import Generate, TaskState, solver
from inspect_ai.util import store

from impasse.defaults import BUDGET
from impasse.inspect_ext.tools import ENDING, STEPS, impasse_tools
from impasse.vocabulary import Ending


@solver
def impasse_agent(budget: int = BUDGET):
    async def solve(state: TaskState, generate: Generate) -> TaskState:
        tools = impasse_tools()
        state.tools = tools
        for step in range(1, budget + 1):
            output = await get_model().generate(state.messages, tools)
            state.output = output
            state.messages.append(output.message)
            store().set(STEPS, step)
            if not output.message.tool_calls:
                store().set(ENDING, {"kind": str(Ending.STOPPED), "message": output.message.text})
                return state
            done = await execute_tools(state.messages, tools)
            state.messages.extend(done.messages)
            if store().get(ENDING) is not None:
                return state
        store().set(ENDING, {"kind": str(Ending.BUDGET_EXHAUSTED), "message": f"{budget} steps"})
        return state

    return solve
