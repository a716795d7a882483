"""Counting events in fixed time windows. Counts are exact: the specification rules out sketches
(HyperLogLog and friends), so distinct counts keep every event id of a window in memory."""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass
from datetime import datetime, timedelta

from logpipe.records import Event


@dataclass(frozen=True)
class WindowStats:
    start: datetime
    events: int
    distinct: int
    by_level: dict

    def as_row(self) -> tuple:
        return (self.start.isoformat(), self.events, self.distinct,
                ",".join(f"{k}={v}" for k, v in sorted(self.by_level.items())))


def window_start(ts: datetime, width: timedelta) -> datetime:
    epoch = datetime(1970, 1, 1, tzinfo=ts.tzinfo)
    offset = (ts - epoch) // width
    return epoch + offset * width


def distinct_count(events: list[Event]) -> int:
    """Retries of the same event carry the same id; they count once."""
    return len({event.event_id for event in events})


def windows(events: list[Event], width: timedelta) -> list[WindowStats]:
    if width <= timedelta(0):
        raise ValueError("window width must be positive")
    grouped: dict[datetime, list[Event]] = defaultdict(list)
    for event in events:
        grouped[window_start(event.ts, width)].append(event)
    return [WindowStats(start, len(group), distinct_count(group),
                        dict(Counter(event.level for event in group)))
            for start, group in sorted(grouped.items())]
