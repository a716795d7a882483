"""mini-swe-agent `.traj.json` (v1 `mini-swe-agent-1` text actions, v2 `mini-swe-agent-1.1` tool
calls, or a bare list of messages), stepped as LABELING.md rule 1 says: every assistant message
starts a step; every following user or tool message, up to the next assistant message, is part of
its observation."""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

from impasse.analysis.formats.common import BASH_BLOCK, ImportProblem, bash_action, command_of, text_of
from impasse.analysis.normal_form import NStep, NTrajectory, Obs
from impasse.vocabulary import Ending

RETURNCODE = re.compile(r"<returncode>(-?\d+)</returncode>")
OUTPUT = re.compile(r"<output(?:_head|_tail)?>\n?(.*?)</output(?:_head|_tail)?>", re.S)
MINI_ENDINGS = {"Submitted": Ending.TASK_COMPLETE, "Escalated": Ending.ESCALATE_TO_HUMAN,
                "LimitsExceeded": Ending.BUDGET_EXHAUSTED,
                "TimeExceeded": Ending.BUDGET_EXHAUSTED, "RepeatedFormatError": Ending.HARNESS_ERROR}


def parse_mini_observation(content: str) -> Obs | None:
    """`<returncode>N</returncode><output>…` or the older `Observation: {'output': …, 'returncode': N}`."""
    code = RETURNCODE.search(content)
    if code:
        parts = OUTPUT.findall(content)
        return Obs("\n".join(parts) if parts else content, int(code.group(1)))
    if content.startswith("Observation:"):
        try:
            payload = ast.literal_eval(content[len("Observation:"):].strip())
            return Obs(str(payload.get("output", "")), payload.get("returncode"))
        except (ValueError, SyntaxError, AttributeError):
            return Obs(content, None)
    return None


def commands_of(message: dict, content: str) -> list[str]:
    """v2: `extra.actions`, else each tool call's command (`command`, or another usual key). v1: the
    one ```bash block; a reply with none or several is a format error (mini-swe-agent ran nothing), a
    step without an action."""
    extra = message.get("extra") or {}
    commands = [a.get("command", "") for a in extra.get("actions") or []]
    if not commands and message.get("tool_calls"):
        for call in message["tool_calls"]:
            try:
                commands.append(command_of(json.loads(call["function"]["arguments"])))
            except (json.JSONDecodeError, KeyError, AttributeError):
                commands.append(str(call.get("function", {}).get("arguments", "")))
    if not commands and not message.get("tool_calls"):
        blocks = BASH_BLOCK.findall(content)
        commands = blocks if len(blocks) == 1 else []
    return commands


def mini_steps(messages: list) -> list[NStep]:
    steps: list[NStep] = []
    for message in messages:
        if not isinstance(message, dict):
            raise TypeError(f"a message is a {type(message).__name__}, not an object")
        role, content = message.get("role"), text_of(message.get("content"))
        if role == "assistant":
            steps.append(NStep(len(steps) + 1, content, [bash_action(c) for c in commands_of(message, content)]))
        elif role in ("tool", "user") and steps:
            extra = message.get("extra") or {}
            if role == "tool" and "returncode" in extra:
                steps[-1].observations.append(Obs(str(extra.get("raw_output", content)), extra["returncode"]))
            else:  # an output, a format error, or the final submission: all part of the observation
                steps[-1].observations.append(parse_mini_observation(content) or Obs(content, None))
    return steps


def from_mini(data, path: Path) -> NTrajectory:
    messages = data if isinstance(data, list) else data.get("messages")
    if not isinstance(messages, list):
        raise ImportProblem(f"{path}: not a mini-swe-agent trajectory: `messages` is not a list")
    info = {} if isinstance(data, list) else data.get("info") or {}
    status = info.get("exit_status") or next((m.get("extra", {}).get("exit_status") for m in reversed(messages)
                                              if isinstance(m, dict) and m.get("role") == "exit"), None)
    ending = MINI_ENDINGS.get(status or "", Ending.HARNESS_ERROR if status else Ending.UNKNOWN)
    config = info.get("config") or {}
    return NTrajectory(run_id=path.name.split(".traj")[0], source="mini-swe-agent", path=str(path),
                       model=str((config.get("model") or {}).get("model_name") or "unknown"), condition=None,
                       task=(data.get("instance_id") if isinstance(data, dict) else None) or path.stem,
                       steps=mini_steps(messages), ending=ending)
