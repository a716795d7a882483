"""Other harnesses' trajectories in the normal form. How each format becomes steps is documented in
docs/importers.md; in short, one step is one model turn and the observation(s) it caused.

- mini-swe-agent v1 (`trajectory_format` "mini-swe-agent-1", or a bare list of messages): each
  assistant message is a step, its action the first ```bash block, its observation the following
  user message (`<returncode>N</returncode><output>…` or `Observation: {'output': …, 'returncode': N}`).
- mini-swe-agent v2 ("mini-swe-agent-1.1"): each assistant message is a step, its actions the
  `extra.actions` commands (else its `tool_calls`), its observations the `tool` messages that
  follow, with `extra.returncode` and `extra.raw_output`.
- SWE-agent `.traj`: each `trajectory[]` entry with a non-empty action is a step; exit codes are
  not recorded.
- ATIF: each `steps[]` entry with source "agent" is a step; tool calls joined to
  `observation.results` by `source_call_id`.
"""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

from impasse.analysis.normal_form import Action, NStep, NTrajectory, Obs
from impasse.episode.rundir import parse_json_file
from impasse.vocabulary import TERMINAL_TOOLS, Ending, Tool, ending_of

FORMATS = ("impasse", "mini-swe-agent", "swe-agent", "atif")
BASH_BLOCK = re.compile(r"```(?:bash|mswea_bash_command)\s*\n(.*?)\n```", re.S)
RETURNCODE = re.compile(r"<returncode>(-?\d+)</returncode>")
OUTPUT = re.compile(r"<output(?:_head|_tail)?>\n?(.*?)</output(?:_head|_tail)?>", re.S)
COMPLETE_MARKERS = ("COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT", "MINI_SWE_AGENT_FINAL_OUTPUT")
MINI_ENDINGS = {"Submitted": Ending.TASK_COMPLETE, "LimitsExceeded": Ending.BUDGET_EXHAUSTED,
                "TimeExceeded": Ending.BUDGET_EXHAUSTED, "RepeatedFormatError": Ending.HARNESS_ERROR}
SWE_AGENT_ENDINGS = {"submitted": Ending.TASK_COMPLETE, "exit_forfeit": Ending.ESCALATE_TO_HUMAN,
                     "exit_cost": Ending.BUDGET_EXHAUSTED, "submitted (exit_cost)": Ending.BUDGET_EXHAUSTED,
                     "exit_api": Ending.TRANSPORT_ERROR}
SWE_AGENT_TOOLS = {"submit": Tool.TASK_COMPLETE, "exit_forfeit": Tool.ESCALATE_TO_HUMAN}


class ImportProblem(ValueError):
    """A file that is not in the format it was said (or guessed) to be in."""


def read_json(path: Path):
    data = parse_json_file(path, ImportProblem)
    if not data or not isinstance(data, list | dict):
        raise ImportProblem(f"{path}: not a trajectory (the document is {json.dumps(data)[:40]})")
    return data


def detect(data) -> str:
    if isinstance(data, list):
        return "mini-swe-agent"
    if isinstance(data, dict):
        if "messages" in data:
            return "mini-swe-agent"
        if "trajectory" in data and "info" in data:
            return "swe-agent"
        if str(data.get("schema_version", "")).startswith("ATIF") or "steps" in data:
            return "atif"
    raise ImportProblem("unknown trajectory format (not mini-swe-agent, SWE-agent or ATIF)")


def parse_mini_observation(content: str) -> Obs | None:
    code = RETURNCODE.search(content)
    if code:
        parts = OUTPUT.findall(content)
        return Obs("\n".join(parts) if parts else content, int(code.group(1)))
    if content.startswith("Observation:"):
        try:
            payload = ast.literal_eval(content[len("Observation:"):].strip())
            return Obs(str(payload.get("output", "")), payload.get("returncode"))
        except (ValueError, SyntaxError):
            return Obs(content, None)
    return None


def bash_action(command: str) -> Action:
    if any(marker in command for marker in COMPLETE_MARKERS):
        return Action(Tool.TASK_COMPLETE, command=command, message=command)
    return Action(Tool.BASH, command=command)


def text_of(content) -> str:
    if isinstance(content, list):
        return "\n".join(str(part.get("text", "")) for part in content if isinstance(part, dict))
    return content or ""


def mini_steps(messages: list[dict]) -> list[NStep]:
    steps: list[NStep] = []
    for message in messages:
        role, content = message.get("role"), text_of(message.get("content"))
        if role == "assistant":
            extra = message.get("extra") or {}
            commands = [a.get("command", "") for a in extra.get("actions") or []]
            if not commands and message.get("tool_calls"):
                for call in message["tool_calls"]:
                    try:
                        commands.append(json.loads(call["function"]["arguments"]).get("command", ""))
                    except (json.JSONDecodeError, KeyError, AttributeError):
                        commands.append(call.get("function", {}).get("arguments", ""))
            if not commands:
                commands = BASH_BLOCK.findall(content)[:1]
            steps.append(NStep(len(steps) + 1, content, [bash_action(c) for c in commands]))
        elif role in ("tool", "user") and steps and steps[-1].actions:
            extra = message.get("extra") or {}
            if role == "tool" and "returncode" in extra:
                steps[-1].observations.append(Obs(str(extra.get("raw_output", content)), extra["returncode"]))
                continue
            obs = parse_mini_observation(content)
            if obs and len(steps[-1].observations) < len(steps[-1].actions):
                steps[-1].observations.append(obs)
    return steps


def from_mini(data, path: Path) -> NTrajectory:
    messages = data if isinstance(data, list) else data.get("messages", [])
    if not any(isinstance(m, dict) and m.get("role") == "assistant" for m in messages):
        raise ImportProblem(f"{path}: not a trajectory: no assistant message")
    info = {} if isinstance(data, list) else data.get("info", {})
    status = info.get("exit_status") or next((m.get("extra", {}).get("exit_status") for m in reversed(messages)
                                              if m.get("role") == "exit"), None)
    steps = mini_steps(messages)
    ending = MINI_ENDINGS.get(status or "", Ending.HARNESS_ERROR if status else Ending.UNKNOWN)
    return NTrajectory(run_id=path.name.split(".traj")[0], source="mini-swe-agent", path=str(path),
                       model=model_name(info), condition=None,
                       task=(data.get("instance_id") if isinstance(data, dict) else None) or path.stem,
                       steps=steps, ending=ending)


def model_name(info: dict) -> str:
    config = info.get("config") or {}
    return str((config.get("model") or {}).get("model_name") or "unknown")


def from_swe_agent(data: dict, path: Path) -> NTrajectory:
    steps = []
    for entry in data.get("trajectory", []):
        action = (entry.get("action") or "").strip()
        if not action:
            continue
        first = action.split()[0]
        kind = SWE_AGENT_TOOLS.get(first)
        act = Action(kind, command=action, message=entry.get("thought", "")) if kind \
            else Action(Tool.BASH, command=action)
        steps.append(NStep(len(steps) + 1, entry.get("thought") or entry.get("response") or "", [act],
                           [Obs(str(entry.get("observation") or ""), None)]))
    status = (data.get("info") or {}).get("exit_status") or ""
    ending = SWE_AGENT_ENDINGS.get(status, Ending.HARNESS_ERROR if status.startswith("exit_") else Ending.UNKNOWN)
    return NTrajectory(run_id=path.name.split(".traj")[0], source="swe-agent", path=str(path),
                       model="unknown", condition=None, task=path.stem, steps=steps, ending=ending)


ATIF_TOOLS = {Tool.TASK_COMPLETE: Tool.TASK_COMPLETE, "submit": Tool.TASK_COMPLETE,
              Tool.ESCALATE_TO_HUMAN: Tool.ESCALATE_TO_HUMAN}


def from_atif(data: dict, path: Path) -> NTrajectory:
    steps = []
    for entry in data.get("steps", []):
        if entry.get("source") != "agent":
            continue
        results = {r.get("source_call_id"): r for r in (entry.get("observation") or {}).get("results", [])}
        actions, observations = [], []
        for call in entry.get("tool_calls") or []:
            arguments = call.get("arguments") or {}
            name = call.get("function_name", "")
            if name in ATIF_TOOLS:
                message = arguments.get("summary") or arguments.get("reason") or ""
                actions.append(Action(ATIF_TOOLS[name], message=str(message)))
            elif name == Tool.EDIT_FILE:
                actions.append(Action(Tool.EDIT_FILE, path=str(arguments.get("path", "")),
                                      content=str(arguments.get("new_str", ""))))
            else:
                actions.append(Action(Tool.BASH, command=str(arguments.get("command", json.dumps(arguments)))))
            result = results.get(call.get("tool_call_id"))
            if result is not None:
                extra = result.get("extra") or {}
                observations.append(Obs(text_of(result.get("content")), extra.get("exit_code"),
                                        extra.get("injected")))
        steps.append(NStep(len(steps) + 1, entry.get("message") or "", actions, observations))
    extra = (data.get("extra") or {}).get("impasse", {})
    last = [a.tool for s in steps[-1:] for a in s.actions]
    ending = ending_of(extra.get("ending") or next((t for t in last if t in TERMINAL_TOOLS), None))
    return NTrajectory(run_id=str(data.get("session_id") or path.stem), source="atif", path=str(path),
                       model=str((data.get("agent") or {}).get("model_name") or "unknown"),
                       condition=extra.get("condition"), task=str(extra.get("task") or path.stem),
                       steps=steps, ending=ending, outcome=extra.get("outcome"), resolved=extra.get("resolved"),
                       blocker_active_at_end=extra.get("blocker_active_at_end"))


READERS = {"mini-swe-agent": from_mini, "swe-agent": from_swe_agent, "atif": from_atif}


def load_foreign(path: Path, fmt: str = "auto") -> NTrajectory:
    data = read_json(path)
    try:
        chosen = detect(data) if fmt == "auto" else fmt
    except ImportProblem as err:
        raise ImportProblem(f"{path}: {err}") from None
    if chosen not in READERS:
        raise ImportProblem(f"{path}: unknown format {fmt!r}; known: {', '.join(FORMATS)}")
    try:
        return READERS[chosen](data, path)
    except (AttributeError, KeyError, TypeError) as err:
        raise ImportProblem(f"{path}: not a valid {chosen} trajectory ({type(err).__name__}: {err})") from None
