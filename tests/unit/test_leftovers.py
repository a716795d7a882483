"""A process table the agent left full, or still filling when the episode ended (a fork loop on a busy
machine may not have reached the limit yet), is cleared before the truth is read; a steady crowd of
processes (an agent's own tooling) and a quiet table are left alone, the quiet one without waiting."""

from __future__ import annotations

import pytest

from impasse.truth import leftovers


@pytest.fixture
def counts(monkeypatch):
    seen: list[int] = []

    def use(*values: int) -> list[int]:
        queue = list(values)
        monkeypatch.setattr(leftovers, "processes", lambda box: (seen.append(1), queue.pop(0))[1])
        monkeypatch.setattr(leftovers.time, "sleep", lambda seconds: None)
        return seen
    return use


def test_a_table_at_its_limit_is_held_full(counts):
    asked = counts()
    assert leftovers.held_full(None, 512, 500) and asked == []


def test_a_quiet_table_is_not_counted_again(counts):
    asked = counts()
    assert not leftovers.held_full(None, 512, 12) and asked == []


def test_a_crowded_table_still_filling_a_second_later_is_held_full(counts):
    counts(180)
    assert leftovers.held_full(None, 512, 120)


def test_a_steady_crowd_is_left_alone(counts):
    counts(121)
    assert not leftovers.held_full(None, 512, 120)
