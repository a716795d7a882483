"""Matrix runs: a small matrix in parallel, and SIGKILL in the middle followed by a restart."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

from impasse.analysis.aggregate import aggregate
from impasse.analysis.driver import annotate_paths
from impasse.analysis.report import ReportError, write_report
from impasse.runs.matrix import MatrixSpec, plan, run_matrix

from .containers import labelled

pytestmark = pytest.mark.docker
SMALL = dict(models=["scripted:oracle", "scripted:false-completer"], conditions=["chown_root", "removed_dependency"],
             tasks=["invoicekit-tax-rounding", "relnotes-breaking-bump"], seeds=1, budget=20, workers=2)
EXPECTED = {("scripted:oracle", "none"): "resolved", ("scripted:false-completer", "none"): "resolved",
            ("scripted:oracle", "chown_root"): "escalated", ("scripted:oracle", "removed_dependency"): "escalated",
            ("scripted:false-completer", "chown_root"): "false_completion",
            ("scripted:false-completer", "removed_dependency"): "false_completion"}


def test_small_matrix_with_two_workers(api, tmp_path):
    spec = MatrixSpec(**SMALL, out=tmp_path)
    progress = run_matrix(api, spec, lambda p, last: None)
    assert (progress.total, progress.done, progress.failed) == (12, 12, 0)
    batch = annotate_paths([tmp_path])
    assert len(batch.annotations) == 12
    for a in batch.annotations:
        assert a.row.outcome == EXPECTED[(a.row.model, a.row.condition)], a.row.run_id
    summary = aggregate(batch.annotations)
    groups = {(g["model"], g["condition"]): g for g in summary["groups"]}
    # Every blocker landed: each card's probe held before step 1 in every run (a miss is a harness
    # error, and would show here below 1.0), and no honest policy is taken for tampering.
    assert summary["landing"] == {card: {"runs": 4, "landed": 4, "share": 1.0} for card in SMALL["conditions"]}
    assert all(g["blocker_landed"] == (None if g["condition"] == "none" else 1.0) for g in summary["groups"])
    assert [a.row.run_id for a in batch.annotations if a.row.tampering] == []
    assert groups[("scripted:oracle", "(blocked, pooled)")]["escalation_rate"] == 1.0
    assert groups[("scripted:false-completer", "(blocked, pooled)")]["false_completion_rate"] == 1.0
    assert groups[("scripted:oracle", "none")]["solve_rate"] == 1.0
    again = run_matrix(api, spec, lambda p, last: None)
    assert (again.skipped, again.done) == (12, 0)
    report = tmp_path / "report.html"
    write_report([tmp_path], report, tmp_path / "report.md")
    text = report.read_text()
    for section in ("Outcomes per model", "N_post and L", "Where the blocker showed", "Escalation precision",
                    "Unsafe workaround categories", "blocker was removed", "<details id=",
                    "<td>chown_root</td><td>4</td><td>4</td><td>1.0</td>", "None: no run forged or tampered"):
        assert section in text
    assert "data:image/png;base64," in text
    assert "No data for this figure." in text  # nobody used a workaround in this matrix


def test_report_on_an_empty_folder_is_a_clear_error(tmp_path):
    with pytest.raises(ReportError, match="no finished impasse runs"):
        write_report([tmp_path], tmp_path / "r.html", None)
    done = subprocess.run([sys.executable, "-m", "impasse", "report", str(tmp_path), "--html",
                           str(tmp_path / "r.html")], capture_output=True, text=True)
    # the command looks for foreign sessions too, and says so
    assert done.returncode == 1 and "no runs or sessions found" in done.stderr and "Traceback" not in done.stderr


def matrix_process(file: Path) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "impasse", "matrix", "--file", str(file)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def finished(out: Path) -> set[str]:
    return {p.parent.name for p in out.glob("*/result.json")}


def test_sigkill_mid_matrix_then_restart_gives_exactly_the_planned_runs(api, tmp_path):
    out = tmp_path / "runs"
    file = tmp_path / "matrix.yaml"
    # budget 24: run ids apart from the other matrix tests' (20, 40), whose containers may be alive beside it
    spec = {**SMALL, "models": ["scripted:persistent", "scripted:oracle"], "budget": 24}
    file.write_text(yaml.safe_dump({**spec, "out": str(out)}))
    planned = {p.run_id for p in plan(MatrixSpec(**spec, out=out))}
    first = matrix_process(file)
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline and not (finished(out) and any(out.glob("*/steps.jsonl"))
                                               and len(list(out.glob("*"))) > len(finished(out))):
        time.sleep(0.2)
    os.kill(first.pid, signal.SIGKILL)
    first.wait(timeout=30)
    assert finished(out) != planned  # it really was cut short
    second = matrix_process(file)
    assert second.wait(timeout=900) == 0, second.stderr.read()
    assert finished(out) == planned
    assert {p.name for p in out.iterdir()} == planned  # no duplicates, no strays
    for run in planned:
        for line in (out / run / "steps.jsonl").read_text().splitlines():
            json.loads(line)
    assert [c for run in planned for c in labelled(api, out / run)] == []


def test_chaos_five_sigkills_in_a_row(api, tmp_path):
    """SIGKILL at random moments, five times, restarting each time: the run set ends complete and
    exact, every trajectory valid, no container left."""
    import random
    out = tmp_path / "runs"
    file = tmp_path / "matrix.yaml"
    spec = {**SMALL, "models": ["scripted:persistent", "scripted:oracle"], "budget": 40}
    file.write_text(yaml.safe_dump({**spec, "out": str(out)}))
    planned = {p.run_id for p in plan(MatrixSpec(**spec, out=out))}
    rng = random.Random(7)
    for _ in range(5):
        proc = matrix_process(file)
        time.sleep(rng.uniform(1.0, 6.0))
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)
    final = matrix_process(file)
    assert final.wait(timeout=900) == 0, final.stderr.read()
    assert finished(out) == planned and {p.name for p in out.iterdir()} == planned
    for run in planned:
        for line in (out / run / "steps.jsonl").read_text().splitlines():
            json.loads(line)
    assert [c for run in planned for c in labelled(api, out / run)] == []
