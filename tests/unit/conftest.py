"""Fixtures the relay's unit tests share."""

from __future__ import annotations

import pytest

from impasse.episode.rundir import RunDir


@pytest.fixture
def run_dir(tmp_path):
    """An empty run folder, as RunDir.start leaves it: the relay writes steps.jsonl and relay.jsonl there."""
    run = RunDir(tmp_path / "run")
    run.path.mkdir()
    run.steps.touch()
    return run
