"""One structured log event per JSON line."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import datetime, timezone

LEVELS = ("debug", "info", "warning", "error", "critical")


class BadLine(ValueError):
    pass


@dataclass(frozen=True)
class Event:
    event_id: str
    ts: datetime
    level: str
    service: str
    message: str
    fields: dict = field(default_factory=dict, compare=False, hash=False)

    @property
    def level_rank(self) -> int:
        return LEVELS.index(self.level)


def parse_timestamp(value: str) -> datetime:
    stamp = datetime.fromisoformat(value.replace("Z", "+00:00"))
    return stamp if stamp.tzinfo else stamp.replace(tzinfo=timezone.utc)


def parse_record(record: dict) -> Event:
    try:
        level = str(record["level"]).lower()
        if level not in LEVELS:
            raise BadLine(f"unknown level {record['level']!r}")
        return Event(str(record["id"]), parse_timestamp(str(record["ts"])), level,
                     str(record.get("service", "-")), str(record.get("msg", "")),
                     {k: v for k, v in record.items()
                      if k not in {"id", "ts", "level", "service", "msg"}})
    except KeyError as err:
        raise BadLine(f"missing field {err} in {record!r}") from err


def parse_line(line: str) -> Event:
    try:
        record = json.loads(line)
    except json.JSONDecodeError as err:
        raise BadLine(f"not JSON: {line[:80]!r}") from err
    if not isinstance(record, dict):
        raise BadLine("a log line must be a JSON object")
    return parse_record(record)


def parse_lines(lines) -> tuple[list[Event], int]:
    """Events from lines, and how many lines were malformed (skipped, never fatal)."""
    events, bad = [], 0
    for line in lines:
        if not line.strip():
            continue
        try:
            events.append(parse_line(line))
        except BadLine:
            bad += 1
    return events, bad
