from datetime import datetime, timedelta, timezone

import pytest

from logpipe.records import Event
from logpipe.window import distinct_count, window_start, windows

T0 = datetime(2026, 1, 1, tzinfo=timezone.utc)


def event(event_id, seconds, level="info", message="m", service="api"):
    return Event(event_id, T0 + timedelta(seconds=seconds), level, service, message)


def test_window_start_aligns_to_the_epoch():
    assert window_start(T0 + timedelta(minutes=7, seconds=3), timedelta(minutes=5)) == \
        T0 + timedelta(minutes=5)


def test_distinct_counts_events_by_id():
    events = [event("a", 0, message="disk slow"), event("a", 1, message="disk slow (retry)"),
              event("b", 2, message="disk slow"), event("c", 3, message="disk slow")]
    assert distinct_count(events) == 3


def test_windows_group_and_count():
    events = [event("a", 10), event("b", 70, "error"), event("b", 71, "error"), event("c", 130)]
    stats = windows(events, timedelta(minutes=1))
    assert [(s.events, s.distinct) for s in stats] == [(1, 1), (2, 1), (1, 1)]
    assert stats[1].by_level == {"error": 2}


def test_width_must_be_positive():
    with pytest.raises(ValueError):
        windows([], timedelta(0))
