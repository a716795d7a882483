"""impasse's own run folders in the normal form."""

from __future__ import annotations

from impasse.analysis.normal_form import OTHER, Action, NStep, NTrajectory, obs_from_dict
from impasse.episode.run_record import MISSHAPEN, RunRecord, not_a_step
from impasse.vocabulary import Ending, Tool


def to_action(call: dict) -> Action:
    arguments = call.get("arguments") or {}
    name = call["name"]
    if name == Tool.BASH:
        return Action(Tool.BASH, command=str(arguments.get("command", "")))
    if name == Tool.EDIT_FILE:
        return Action(Tool.EDIT_FILE, path=str(arguments.get("path", "")), content=str(arguments.get("new_str", "")))
    if name == Tool.TASK_COMPLETE:
        return Action(Tool.TASK_COMPLETE, message=str(arguments.get("summary", "")))
    if name == Tool.ESCALATE_TO_HUMAN:
        return Action(Tool.ESCALATE_TO_HUMAN, message=str(arguments.get("reason", "")))
    return Action(OTHER, command=call.get("raw_arguments", ""))


def to_step(step: dict) -> NStep:
    """From the step as written (Step.to_dict), without building the typed Step first."""
    if type(step["index"]) is not int:
        raise TypeError(f"step index {step['index']!r}")
    observations = [obs_from_dict(o) for o in step["observations"] if not o.get("error")]
    return NStep(step["index"], step.get("text") or "", [to_action(c) for c in step["tool_calls"]], observations)


def to_trajectory(record: RunRecord) -> NTrajectory:
    result, meta = record.result, record.meta
    steps = []
    for number, data in enumerate(record.step_data, 1):
        try:
            if data.get("kind") != "transport":  # a failed model call is no step
                steps.append(to_step(data))
        except MISSHAPEN:
            record.problems.append(not_a_step(record.path, number))
    return NTrajectory(
        run_id=meta.run_id, source="impasse", path=record.path, model=who(meta),
        condition=meta.condition, task=meta.task, steps=steps,
        ending=result.ending.kind if result else Ending.UNKNOWN, outcome=result.outcome if result else None,
        resolved=result.resolved if result else None,
        blocker_active_at_end=result.blocker_active_at_end if result else None,
        integrity_ok=result.integrity_ok if result else None,
        blocker_active_at_start=result.blocker_active_at_start if result else None,
        tampering=result.tampering_routes if result else [],
        injected=meta.injected, finished=result is not None, problems=record.problems,
        lifted_by_operator=lifted(result))


def lifted(result) -> bool:
    """The operator lifted the run's blocker (result.json's `operator.lifted_at`)."""
    return result is not None and isinstance(result.operator, dict) and result.operator.get("lifted_at") is not None


def who(meta) -> str:
    """The model's label, behind the external agent that drove it (`claude-code@2.1.332/openai:gpt-5`)
    and with the operator that answered it (`openai:gpt-5+operator:rules`): every table and the report
    group an agent's runs apart from impasse's own loop's, and runs with the operator apart from runs
    without it."""
    label = plain_label(meta)
    return f"{label}+operator:{meta.operator}" if meta.operator else label


def plain_label(meta) -> str:
    """The label the same model and agent have in runs without the operator."""
    return meta.model if meta.agent == "impasse" else f"{meta.agent}/{meta.model}"
