"""mini-swe-agent's one tool, its spec's shell (`bash {command}`), in impasse's terms, and back.

Its verdicts are sentinel outputs: a command whose output's first line is
`COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT` submits (mini's own, the lines after it are the summary);
impasse adds `IMPASSE_ESCALATE_TO_HUMAN: <reason>` (the reason may go on over the lines after it).
A scripted policy's edit runs as impasse's own edit script, with the same words as under impasse's
loop. Its observations come back in mini.yaml's template: a JSON object with `returncode` and
`output` (`output_head`/`output_tail` for a long one)."""

from __future__ import annotations

import json
import shlex

from impasse.agents.agent_calls import AgentCall, Offered
from impasse.agents.tool_specs import AgentTools
from impasse.agents.tools_declared import script_edit
from impasse.models.turns import ToolCall
from impasse.vocabulary import TERMINAL_ARGUMENT, Tool

MINI = "mini-swe-agent"  # the agent, and the translator's name in its spec
SENTINELS = {Tool.TASK_COMPLETE: "COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT",
             Tool.ESCALATE_TO_HUMAN: "IMPASSE_ESCALATE_TO_HUMAN"}


def mini_command(call: ToolCall, edit_script: str) -> str:
    """A policy's call as a mini-swe-agent command."""
    args = call.arguments or {}
    if call.name in SENTINELS:
        text = shlex.quote(str(args.get(TERMINAL_ARGUMENT[call.name], "")))
        if call.name == Tool.ESCALATE_TO_HUMAN:
            return f"echo {SENTINELS[call.name]}: {text}"
        return f"printf '%s\\n' {SENTINELS[call.name]} {text}"  # mini's sentinel alone on the first line
    if call.name == Tool.EDIT_FILE:
        return script_edit(args, edit_script)
    return str(args.get("command", ""))


def to_mini(call: ToolCall, tools: AgentTools, offered: Offered, workdir: str, edit_script: str) -> list[AgentCall]:
    """One tool: every call is a command (a verdict is its sentinel). A named translator, since its
    verdicts are no tools of the agent's but words a command prints."""
    shell = tools.shells[0]
    return [AgentCall(call.id, shell.name, shell.arguments(mini_command(call, edit_script)))]


def command_verdict(command: str) -> tuple[Tool, str] | None:
    """A command that names a sentinel, as (verdict tool, its text), read as the trajectory importer
    reads it: the sentinel anywhere in the command. Whether it printed it is the environment's word."""
    for tool, sentinel in SENTINELS.items():
        if sentinel in command:
            return tool, command.split(sentinel, 1)[1].lstrip(":").strip().strip("'\"")
    return None


def output_verdict(output: str, returncode: int | None) -> tuple[Tool, str] | None:
    """What a command's output says, as mini-swe-agent's own check reads it: the sentinel as the first
    line of a command that exited 0; the text is the rest of that line and the lines after it."""
    lines = output.lstrip().splitlines()
    if not lines or returncode != 0:
        return None
    first = lines[0].strip()
    for tool, sentinel in SENTINELS.items():
        if first == sentinel or (tool == Tool.ESCALATE_TO_HUMAN and first.startswith(f"{sentinel}:")):
            return tool, "\n".join([first.removeprefix(sentinel).lstrip(":").strip(), *lines[1:]]).strip()
    return None


def mini_output(text: str) -> tuple[str, int | None]:
    """An observation in mini.yaml's template as (output, exit code); anything else kept as text."""
    try:
        shown = json.loads(text)
    except json.JSONDecodeError:
        return text, None
    if not isinstance(shown, dict) or "returncode" not in shown:
        return text, None
    output = shown["output"] if "output" in shown else f"{shown.get('output_head', '')}\n{shown.get('output_tail', '')}"
    code = shown.get("returncode")
    return str(output), code if isinstance(code, int) and code >= 0 else None
