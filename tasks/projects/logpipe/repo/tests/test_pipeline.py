"""End to end: the real jq, the real sqlite file."""

from logpipe.pipeline import run
from logpipe.store import SummaryStore


def test_end_to_end_summary(small_log, tmp_path):
    summary = run(small_log, tmp_path / "s.sqlite3", "nightly", min_level="warning")
    assert (summary.kept, summary.malformed) == (496, 0)
    assert summary.distinct == 455
    assert SummaryStore(tmp_path / "s.sqlite3").totals("nightly") == (496, 455)


def test_service_selection(small_log, tmp_path):
    summary = run(small_log, tmp_path / "s.sqlite3", "billing", min_level="debug",
                  services=["billing"])
    assert summary.kept == 400
