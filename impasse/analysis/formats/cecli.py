"""cecli's saved sessions (`--auto-save`: `<work tree>/.cecli/agents/<date>/<id>/auto-save.json`): one
JSON object, `{version, session_name, model, edit_format, chat_history: {done_messages, cur_messages},
files, settings, mcps, tools, usage}`, its messages in OpenAI's chat form (`role: user|assistant|tool`,
an assistant's `tool_calls`, a tool message's `tool_call_id`).

A step is one assistant message: its text, its actions the `tool_calls` (a command: `local--Command`;
impasse's verdict tools: `impasse--<tool>`; any other tool, its own edit and read included, by name);
its observations the tool messages that follow, each matched to its call by id. A tool message's
content is cecli's result object; a command's status is its first line's exit code (none for a
command its timeout sent to the background). A user message (the prompt, or cecli's own nudge to go
on) is no observation."""

from __future__ import annotations

import json
from pathlib import Path

from impasse.agents.specs import load_specs
from impasse.analysis.formats.common import ImportProblem, other_action, verdict_action, verdict_of
from impasse.analysis.normal_form import OTHER, Action, NStep, NTrajectory, Obs
from impasse.dialects.cecli import STILL_RUNNING, cecli_output, content_of
from impasse.vocabulary import Tool

SPEC = load_specs()["cecli"]  # its tools' names, as its spec declares them
MCP_PREFIX, SHELL = SPEC.mcp.tool_prefix, SPEC.tools.shells[0].name  # `impasse--`, `local--Command`
EDIT_TOOL = "local--EditFile"  # its own edit, which its spec leaves undeclared (a policy's edits use impasse's)


def is_cecli_session(data) -> bool:
    return isinstance(data, dict) and isinstance(data.get("chat_history"), dict) and "edit_format" in data


def arguments_of(call: dict) -> dict:
    function = call.get("function") if isinstance(call.get("function"), dict) else {}
    try:
        args = json.loads(function.get("arguments") or "{}")
    except ValueError:
        return {"raw": function.get("arguments")}
    return args if isinstance(args, dict) else {"raw": args}


def cecli_action(name: str, args: dict) -> Action:
    if name.startswith(MCP_PREFIX) and (verdict := verdict_action(name.replace("--", "__", 1), args, "mcp")):
        return verdict
    if name == SHELL and "command" in args:
        return Action(Tool.BASH, command=str(args["command"]))
    if name == EDIT_TOOL and isinstance(args.get("edits"), list) and args["edits"]:
        first = args["edits"][0] if isinstance(args["edits"][0], dict) else {}
        return Action(Tool.EDIT_FILE, path=str(first.get("file_path", "")), content=str(first.get("text", "")))
    return other_action(name, args)


def tool_obs(message: dict, action: Action | None) -> Obs:
    text = str(message.get("content") or "")
    kind = action.kind if action else OTHER
    if action is not None and action.tool == Tool.BASH:
        output, code = cecli_output(text)
        return Obs(output, code, kind=kind, timed_out=content_of(text).startswith(STILL_RUNNING))
    return Obs(content_of(text).replace("\r\n", "\n"), None, kind=kind)


def cecli_steps(messages: list) -> list[NStep]:
    steps: list[NStep] = []
    calls: dict[str, Action] = {}  # tool call id → its action
    for message in messages:
        if not isinstance(message, dict):
            continue
        if message.get("role") == "assistant":
            step = NStep(len(steps) + 1, str(message.get("content") or ""))
            for call in message.get("tool_calls") or []:
                if isinstance(call, dict):
                    name = str((call.get("function") or {}).get("name", ""))
                    calls[str(call.get("id"))] = action = cecli_action(name, arguments_of(call))
                    step.actions.append(action)
            steps.append(step)
        elif message.get("role") == "tool" and steps:
            steps[-1].observations.append(tool_obs(message, calls.get(str(message.get("tool_call_id")))))
    return steps


def from_cecli(data, path: Path) -> NTrajectory:
    if not is_cecli_session(data):
        raise ImportProblem(f"{path}: not a cecli session (no chat_history and edit_format)")
    history = data["chat_history"]
    messages = [*(history.get("done_messages") or []), *(history.get("cur_messages") or [])]
    steps = cecli_steps(messages)
    return NTrajectory(run_id=str(path.parent.name), source="cecli", path=str(path), model=str(data.get("model")),
                       condition=None, task=path.stem, steps=steps, ending=verdict_of(steps))
