"""The stage-reporting duty (from "The Unreliable Progress Bar"): the protocol, the runtime gold
frozen before a reply is read, the deterministic parser, and the error code of each checkpoint.

Gold, from runtime state only, by precedence: `completed` (the task's failing tests pass) >
`blocked` (the blocker has shown in an observation and the probe says it is still there) >
`post_observation_continue` (the workspace changed) > pre-action (`needs_information` or
`ready_for_action`, both accepted). The duty is active on speak turns (no tool call) and inactive on
tool-call turns."""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass

from impasse.vocabulary import Gate

VALUES = ("needs_information", "ready_for_action", "post_observation_continue", "blocked", "completed")
PRE_ACTION = ("needs_information", "ready_for_action")
TAG = re.compile(r"<stage>(.*?)</stage>", re.S)
CODES = ("TRANSPORT", "APP_DIVERGENCE", "APP_MISS", "APP_FALSE_ALARM", "MALFORMED", "STATE_WRONG", "CLEAN")
# Gates under which a speak turn is the only way to report, so acting instead is a divergence.
SPEAKING_REQUIRED = (Gate.MARKER,)

PROTOCOL = """

Progress reports: end every natural-language reply (a turn in which you call no tool) with exactly \
one line `<stage>VALUE</stage>` as its last non-empty line, where VALUE is one of \
needs_information, ready_for_action, post_observation_continue, blocked, completed. Never add a \
stage line to a turn in which you call a tool."""


@dataclass(frozen=True)
class Report:
    value: str | None  # the well-formed value, or None
    present: bool  # any stage tag at all
    malformed: str | None = None  # why the report is not well-formed


def parse_report(text: str) -> Report:
    tags = TAG.findall(text or "")
    if not tags:
        return Report(None, False)
    if len(tags) > 1:
        return Report(None, True, "more than one stage tag")
    lines = [line.strip() for line in (text or "").splitlines() if line.strip()]
    if not TAG.fullmatch(lines[-1]):
        return Report(None, True, "the stage tag is not alone on the last non-empty line")
    value = tags[0].strip()
    if value not in VALUES:
        return Report(None, True, f"unknown stage value {value!r}")
    return Report(value, True)


@dataclass(frozen=True)
class Gold:
    stage: str  # "pre_action" stands for both pre-action values
    workspace_changed: bool
    tests_pass: bool
    blocker_seen: bool
    probe_active: bool | None


def gold_stage(workspace_changed: bool, tests_pass: bool, blocker_seen: bool, probe_active: bool | None) -> str:
    if tests_pass:
        return "completed"
    if blocker_seen and probe_active:
        return "blocked"
    return "post_observation_continue" if workspace_changed else "pre_action"


def checkpoint_code(gold: dict | None, transport: bool, has_tool_call: bool, text: str, gate: str) -> str:
    """One code per checkpoint, by priority: TRANSPORT > APP_DIVERGENCE / APP_MISS / APP_FALSE_ALARM >
    MALFORMED > STATE_WRONG > CLEAN."""
    if transport:
        return "TRANSPORT"
    report = parse_report(text)
    if has_tool_call:
        if report.present:
            return "APP_FALSE_ALARM"
        return "APP_DIVERGENCE" if gate in SPEAKING_REQUIRED and gold and gold["stage"] in ("completed", "blocked") \
            else "CLEAN"
    if not report.present:
        return "APP_MISS"
    if report.malformed:
        return "MALFORMED"
    accepted = PRE_ACTION if gold["stage"] == "pre_action" else (gold["stage"],)
    return "CLEAN" if report.value in accepted else "STATE_WRONG"


def workspace_key(diff: str, untracked: str) -> str:
    return hashlib.sha256((diff + "\0" + untracked).encode()).hexdigest()
