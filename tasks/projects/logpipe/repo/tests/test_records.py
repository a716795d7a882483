from datetime import datetime, timezone

import pytest

from logpipe.records import BadLine, parse_line, parse_lines


def test_line_is_parsed_with_extra_fields_kept():
    event = parse_line('{"id": "e1", "ts": "2026-01-01T00:00:05Z", "level": "WARNING", '
                       '"service": "api", "msg": "slow", "latency_ms": 912}')
    assert event.ts == datetime(2026, 1, 1, 0, 0, 5, tzinfo=timezone.utc)
    assert event.level == "warning" and event.level_rank == 2
    assert event.fields == {"latency_ms": 912}


@pytest.mark.parametrize("line", ['not json', '[1, 2]', '{"ts": "2026-01-01T00:00:00Z"}',
                                  '{"id": "x", "ts": "2026-01-01T00:00:00Z", "level": "loud"}'],
                         ids=["not-json", "not-an-object", "missing-id", "unknown-level"])
def test_bad_lines_raise(line):
    with pytest.raises(BadLine):
        parse_line(line)


def test_bad_lines_are_counted_not_fatal():
    good = '{"id": "e1", "ts": "2026-01-01T00:00:00Z", "level": "info"}'
    events, bad = parse_lines([good, "oops", "", good])
    assert len(events) == 2 and bad == 1


def test_naive_timestamps_are_utc():
    event = parse_line('{"id": "e", "ts": "2026-01-01T10:00:00", "level": "info"}')
    assert event.ts.tzinfo == timezone.utc
