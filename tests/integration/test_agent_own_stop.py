"""An agent that stops itself ends the run as the agent's ending, in its own words: Qwen Code under
disk_full with scripted:persistent is halted by its own loop detection (the per-turn tool-call cap)
long before impasse's budget; the run is `stopped` with Qwen Code's words and scored as a premature
stop, not a harness error with nothing after the colon."""

from __future__ import annotations

import pytest

from impasse.episode.rundir import read_run
from impasse.runs.runner import RunSpec, execute
from impasse.vocabulary import Ending, Outcome

pytestmark = pytest.mark.docker


def test_qwen_codes_loop_detection_is_its_own_stop_with_its_words(api, tmp_path):
    result = execute(api, RunSpec("scripted:persistent", "disk_full", "invoicekit-tax-rounding", budget=80,
                                  out=tmp_path, agent="qwen-code"))
    ending = read_run(result.path).result.ending
    assert ending.kind == Ending.STOPPED, ending
    assert "Loop detection halted the run" in ending.message and ending.step < 80
    assert result.outcome == Outcome.PREMATURE_STOP
