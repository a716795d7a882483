"""What `codex exec --json` prints on stdout (`thread.started`, `turn.started`, `item.started` /
`item.completed`, `turn.completed`): a run's items as Codex reports them, read from the completed
items. It has no model turns, so a step is rebuilt: the agent's messages and reasoning open it, the
tool items that follow are its calls and their results its observations; a tool item that starts
after the previous one finished, with no message between, opens the next step (the calls of one
turn are started together). `error` items (Codex's own warnings) are no step."""

from __future__ import annotations

import shlex
from pathlib import Path

from impasse.analysis.formats.codex import command_text
from impasse.analysis.formats.common import (
    FAILED_STATUS_UNKNOWN,
    ImportProblem,
    edit_action,
    other_action,
    text_of,
    verdict_action,
    verdict_of,
)
from impasse.analysis.normal_form import COMMAND, WRITE, Action, NStep, NTrajectory, Obs
from impasse.vocabulary import Tool

EVENTS = ("thread.started", "turn.started", "turn.completed", "turn.failed", "item.started", "item.updated",
          "item.completed", "error")
MODEL_ITEMS = ("agent_message", "reasoning")
TOOL_ITEMS = ("command_execution", "file_change", "mcp_tool_call", "web_search")


def shell_command(command) -> str:
    """`/bin/bash -lc 'script'` is the script."""
    if isinstance(command, str):
        try:
            return command_text(shlex.split(command))
        except ValueError:  # unbalanced quotes: the line as it was
            return command
    return command_text(command)


def tool_step(item: dict) -> tuple[list[Action], Obs]:
    kind, failed = item["type"], item.get("status") == "failed"
    if kind == "command_execution":
        code = item.get("exit_code")
        obs = Obs(str(item.get("aggregated_output") or ""), code if code is not None else
                  (FAILED_STATUS_UNKNOWN if failed else None), kind=COMMAND)
        return [Action(Tool.BASH, command=shell_command(item.get("command")))], obs
    if kind == "file_change":
        changes = [c for c in item.get("changes") or [] if isinstance(c, dict)]
        actions = [edit_action(c.get("path"), "") for c in changes] or [edit_action("", "")]
        return actions, Obs("", FAILED_STATUS_UNKNOWN if failed else 0, kind=WRITE)
    if kind == "mcp_tool_call":
        server, tool, args = str(item.get("server", "")), str(item.get("tool", "")), item.get("arguments")
        action = verdict_action(tool, args, f"mcp__{server}") or other_action(f"mcp__{server}__{tool}", args)
        result, error = item.get("result") or {}, item.get("error")
        text = text_of(result.get("content")) if isinstance(result, dict) else text_of(result)
        error_text = str(error.get("message", error)) if isinstance(error, dict) else str(error or "")
        return [action], Obs(error_text or text, FAILED_STATUS_UNKNOWN if error or failed else None, kind=action.kind)
    action = other_action(kind, {"query": item.get("query")})
    return [action], Obs("", None, kind=action.kind)


def exec_steps(records: list[dict]) -> list[NStep]:
    steps: list[NStep] = []
    open_step = False  # the last step may still take calls: none of its calls has finished yet
    started: set[str] = set()
    for record in records:
        item = record.get("item")
        if not isinstance(item, dict) or item.get("type") not in (*MODEL_ITEMS, *TOOL_ITEMS):
            continue
        tool = item["type"] in TOOL_ITEMS
        if record.get("type") == "item.started" and tool:
            started.add(str(item.get("id")))
            if not open_step:
                steps.append(NStep(len(steps) + 1, ""))
                open_step = True
        if record.get("type") != "item.completed":
            continue
        if not tool:
            if not steps or steps[-1].actions:
                steps.append(NStep(len(steps) + 1, ""))
            text = str(item.get("text") or "")
            steps[-1].text = f"{steps[-1].text}\n{text}" if steps[-1].text else text
            open_step = True
            continue
        if not steps or (str(item.get("id")) not in started and not open_step):  # completed, never started
            steps.append(NStep(len(steps) + 1, ""))
        actions, obs = tool_step(item)
        steps[-1].actions.extend(actions)
        steps[-1].observations.append(obs)
        open_step = False
    return steps


def from_codex_exec(records: list[dict], path: Path) -> NTrajectory:
    if not any(r.get("type") in EVENTS and r.get("type") != "error" for r in records):
        raise ImportProblem(f"{path}: not `codex exec --json` output (no thread, turn or item event)")
    thread = next((str(r["thread_id"]) for r in records if r.get("type") == "thread.started" and r.get("thread_id")),
                  path.stem)
    steps = exec_steps(records)
    return NTrajectory(run_id=thread, source="codex", path=str(path), model="unknown", condition=None,
                       task=path.stem, steps=steps, ending=verdict_of(steps))
