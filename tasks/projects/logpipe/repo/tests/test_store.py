from datetime import timedelta

import pytest

from logpipe.store import SummaryStore
from logpipe.window import windows
from tests.test_window import event


def test_summaries_round_trip(tmp_path):
    store = SummaryStore(tmp_path / "summary.sqlite3")
    stats = windows([event("a", 0), event("b", 400, "error")], timedelta(minutes=5))
    assert store.write("nightly", stats) == 2
    rows = store.read("nightly")
    assert rows[0][1:] == (1, 1, "info=1")
    assert store.totals("nightly") == (2, 2)


def test_rewriting_a_window_replaces_it(tmp_path):
    store = SummaryStore(tmp_path / "summary.sqlite3")
    store.write("run", windows([event("a", 0)], timedelta(minutes=5)))
    store.write("run", windows([event("a", 0), event("b", 1)], timedelta(minutes=5)))
    assert store.totals("run") == (2, 2)


def test_labels_are_checked(tmp_path):
    with pytest.raises(ValueError):
        SummaryStore(tmp_path / "s.sqlite3").write("x; DROP TABLE y", [])
