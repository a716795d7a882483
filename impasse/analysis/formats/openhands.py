"""OpenHands event lists (a JSON array of events, or an object whose `history` is one), stepped as
LABELING.md rule 3 says: every agent event with an `action` (other than `system` and `recall`)
starts a step; every following event with an `observation`, up to the next such action, is part of
its observation. User events are ignored."""

from __future__ import annotations

from pathlib import Path

from impasse.analysis.formats.common import (
    FAILED_STATUS_UNKNOWN,
    ImportProblem,
    edit_action,
    other_action,
    text_of,
    tool_kind,
)
from impasse.analysis.normal_form import COMMAND, OTHER, WRITE, Action, NStep, NTrajectory, Obs
from impasse.vocabulary import Ending, Tool

NOT_STEPS = ("system", "recall")
SPOKEN = ("message", "think")  # the agent's own words: a step's text, not an action
EDITS = ("create", "str_replace", "insert", "edit", "write")
OBSERVATION_KINDS = {"run": COMMAND, "run_ipython": COMMAND, "edit": WRITE, "write": WRITE}  # else by tool_kind
ERROR = "error"  # an ErrorObservation: the action it answers (`cause`) failed


def is_step(event: dict) -> bool:
    return event.get("source") == "agent" and "action" in event and event["action"] not in NOT_STEPS


def openhands_action(kind: str, args: dict) -> list[Action]:
    if kind == "run":
        return [Action(Tool.BASH, command=str(args.get("command", "")))]
    if kind == "finish":
        summary = args.get("final_thought") or args.get("outputs") or args.get("thought") or ""
        return [Action(Tool.TASK_COMPLETE, message=text_of(summary))]
    if kind == "write" or (kind == "edit" and args.get("command", "edit") in EDITS):
        content = next((args[k] for k in ("file_text", "new_str", "content") if args.get(k) is not None), "")
        return [edit_action(args.get("path"), content)]
    if kind in SPOKEN:
        return []
    return [other_action(kind, args)]


def exit_code_of(event: dict) -> int | None:
    """`extras.metadata.exit_code` (newer) or `extras.exit_code`; -1 is OpenHands' "no exit code"
    (the command is still running or timed out)."""
    extras = event.get("extras") or {}
    code = (extras.get("metadata") or {}).get("exit_code", extras.get("exit_code"))
    return code if isinstance(code, int) and code != -1 else None


def observation_kind(event: dict) -> str:
    """What produced an observation, by its `observation` type (`run`, `read`, `edit`, `browse`…);
    an `agent_state_changed` observation is none of the kinds."""
    name = str(event.get("observation") or "")
    return OBSERVATION_KINDS.get(name) or tool_kind(name) if name else OTHER


def model_of(events: list[dict]) -> str:
    for event in events:
        response = (event.get("tool_call_metadata") or {}).get("model_response") or {}
        if response.get("model"):
            return str(response["model"])
    return "unknown"


def from_openhands(data, path: Path) -> NTrajectory:
    events = data.get("history") if isinstance(data, dict) else data
    if not isinstance(events, list) or not all(isinstance(e, dict) for e in events):
        raise ImportProblem(f"{path}: not an OpenHands event list (expected a JSON array of event objects)")
    steps: list[NStep] = []
    last_kind = None
    kinds: dict = {}  # an action event's id → its kind, for the error observations it causes
    for event in events:
        if is_step(event):
            args = event.get("args") or {}
            text = args.get("thought") or (args.get("content") if event["action"] == "message" else "") \
                or event.get("message") or ""
            actions = openhands_action(event["action"], args)
            steps.append(NStep(len(steps) + 1, text_of(text), actions))
            kinds[event.get("id")] = actions[0].kind if actions else OTHER
            last_kind = event["action"]
        elif "observation" in event and steps:
            content, code = text_of(event.get("content")), exit_code_of(event)
            if event["observation"] == ERROR:  # the action it answers failed, its status not recorded
                kind, code = kinds.get(event.get("cause"), OTHER), FAILED_STATUS_UNKNOWN if code is None else code
            else:
                kind = observation_kind(event)
            if content or code is not None:
                steps[-1].observations.append(Obs(content, code, kind=kind))
    if not steps and not any("action" in e or "observation" in e for e in events):
        raise ImportProblem(f"{path}: not an OpenHands event list (no event has an `action` or `observation`)")
    ending = Ending.TASK_COMPLETE if last_kind == "finish" else Ending.UNKNOWN
    return NTrajectory(run_id=path.stem, source="openhands", path=str(path), model=model_of(events),
                       condition=None, task=str((data.get("instance_id") if isinstance(data, dict) else None)
                                               or path.stem), steps=steps, ending=ending)
