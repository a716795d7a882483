"""Production-sized batches. The specification (README, "Exactness") requires exact counts over a
whole batch held in memory; these tests use the batch sizes of the nightly job."""

from datetime import datetime, timezone

from logpipe.jq import level_filter, run_jq
from logpipe.records import Event, parse_lines
from logpipe.window import distinct_count

from .conftest import generate_log

NIGHTLY_EVENTS = 1_000_000
NIGHTLY_LINES = 300_000


def test_exact_distinct_over_a_nightly_batch():
    ts = datetime(2026, 1, 1, tzinfo=timezone.utc)
    events = [Event(f"evt-{i:09d}", ts, "info", "api", "heartbeat") for i in range(NIGHTLY_EVENTS)]
    events.extend(events[:1000])  # retries of the first thousand
    assert distinct_count(events) == NIGHTLY_EVENTS


def test_nightly_batch_filter(tmp_path):
    source = generate_log(tmp_path / "nightly.log", NIGHTLY_LINES, seed=3)
    audit_trail, _ = parse_lines(source.read_text().splitlines())  # kept whole, as the job does
    events, malformed = parse_lines(run_jq(level_filter("warning"), source))
    assert len(audit_trail) == NIGHTLY_LINES
    assert malformed == 0
    assert len(events) == 74955
