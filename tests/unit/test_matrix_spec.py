"""A matrix can set everything a single run can, from the command line or its file."""

from __future__ import annotations

from pathlib import Path

import pytest

from impasse.runs.matrix import MatrixError, load_matrix_file, plan
from impasse.vocabulary import Duty, Gate

FILE = """models: [scripted:reporter]
conditions: [chown_root]
tasks: [invoicekit-tax-rounding]
seeds: 2
budget: 12
workers: 3
out: {out}
gate: marker
report_duty: stage
tool_timeout: 30
model_timeout: 5.5
channel: false
"""


def test_every_run_setting_reaches_every_planned_run(tmp_path: Path):
    path = tmp_path / "m.yaml"
    path.write_text(FILE.format(out=tmp_path / "runs"))
    spec = load_matrix_file(path)
    planned = plan(spec)
    assert len(planned) == 4  # chown_root and the control, two seeds each
    for item in planned:
        run = item.spec
        assert (run.gate, run.report_duty, run.budget, run.tool_timeout, run.model_timeout, run.channel) == \
            (Gate.MARKER, Duty.STAGE, 12, 30, 5.5, False)
        assert run.out == tmp_path / "runs" and item.condition.name == run.condition
    assert len({p.run_id for p in planned}) == 4


@pytest.mark.parametrize("line,named", [("gate: sideways", "gate"), ("seeds: 0", "seeds"),
                                        ("channel: yes please", "channel"), ("budget: 2.5", "budget"),
                                        ("colour: red", "unknown keys")])
def test_a_bad_setting_is_named(tmp_path: Path, line: str, named: str):
    path = tmp_path / "m.yaml"
    path.write_text("models: [scripted:oracle]\n" + line + "\n")
    with pytest.raises(MatrixError, match=named):
        load_matrix_file(path)
