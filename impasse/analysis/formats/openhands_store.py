"""OpenHands as it keeps its logs, beyond a single event list: a session folder
(`~/.openhands/sessions/<id>/events/<n>.json`, one event per file, numbered in order) and an
evaluation's `output.jsonl` (one instance per line, its events under `history`). Both become
ordinary OpenHands event lists for `openhands.py`."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

from impasse.analysis.formats.common import ImportProblem
from impasse.episode.rundir import read_utf8

EVENTS_FOLDER = "events"
# `12.json` (the CLI and server's file store); `event-00012-<uuid>.json` (the newer SDK's).
EVENT_FILE = re.compile(r"^(?:event-)?(\d+)(?:-[\w-]+)?\.json$")
# A line of an evaluation's output that is too long to parse from its first megabyte still shows both keys.
EVAL_HEAD = re.compile(r'^\{.*"instance_id"\s*:.*"history"\s*:\s*\[', re.S)


def event_number(name: str) -> int | None:
    found = EVENT_FILE.match(name)
    return int(found.group(1)) if found else None


def is_event_folder(path: Path) -> bool:
    """A session's `events` folder: at least one numbered event file in it."""
    if path.name != EVENTS_FOLDER:
        return False
    try:
        with os.scandir(path) as entries:
            return any(event_number(e.name) is not None for e in entries if e.is_file())
    except OSError:
        return False


def read_event_folder(path: Path) -> tuple[list[dict], list[str]]:
    """(the events in order, warnings). The last file torn or empty is a session still being
    written: left out with a warning, as a torn last line of a JSON Lines session is; any other
    unreadable event is the folder's error, named by its file."""
    numbered = sorted((n, p) for p in path.iterdir() if (n := event_number(p.name)) is not None)
    events: list[dict] = []
    for position, (_, file) in enumerate(numbered):
        try:
            event = json.loads(read_utf8(file, ImportProblem))
        except json.JSONDecodeError as err:
            if position == len(numbered) - 1:
                return events, [f"{file}: the last event is torn (a session still being written); left out"]
            raise ImportProblem(f"{file}:{err.lineno}: invalid JSON ({err.msg})") from None
        if not isinstance(event, dict):
            raise ImportProblem(f"{file}: not an OpenHands event (a JSON object)")
        events.append(event)
    return events, []


def session_folder_name(events_folder: Path) -> str:
    """The session's id: the folder that holds `events`."""
    return events_folder.parent.name or events_folder.name


def is_eval_record(record) -> bool:
    return isinstance(record, dict) and "instance_id" in record and isinstance(record.get("history"), list)


def looks_like_eval_output(head: str) -> bool:
    """Whether a JSON Lines file's first megabyte opens an evaluation's output."""
    return bool(EVAL_HEAD.match(head.lstrip()))


def eval_model(record: dict) -> str | None:
    """The model the evaluation ran, from its metadata (`metadata.llm_config.model`)."""
    config = (record.get("metadata") or {}).get("llm_config") or {}
    return str(config["model"]) if isinstance(config, dict) and config.get("model") else None


def eval_cost(record: dict) -> float | None:
    """The instance's cost as the evaluation recorded it (`metrics.accumulated_cost`)."""
    cost = (record.get("metrics") or {}).get("accumulated_cost")
    return float(cost) if isinstance(cost, int | float) and not isinstance(cost, bool) else None
