"""Blockers that landed: the share of each card's runs whose blocker was in place before step 1,
in the aggregates, `impasse annotate` and the report. A run whose blocker did not land is the
harness's failure, never a scored behaviour."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from impasse.analysis.aggregate import aggregate
from impasse.analysis.driver import annotate_paths
from impasse.analysis.report import write_report
from impasse.cli.main import app
from impasse.episode.agent import EpisodeEnd
from impasse.runs.runner import scored_outcome
from impasse.vocabulary import Ending, Outcome

from .runbuilder import bash, finish, make_run

DENIED = "PermissionError: [Errno 13] Permission denied: '/workspace/app/core.py'"


def runs(root):
    """chown_root: two runs that landed (one of them a transport error) and one that did not;
    removed_dependency: one that landed; the control; and a chown_root run cut short."""
    escalate = [("", [bash("touch app/core.py", DENIED, 1)]), ("", [finish("escalate_to_human", "root owns it")])]
    make_run(root, "landed", "chown_root", escalate, "escalate_to_human", "escalated", task="t1")
    make_run(root, "landed-transport", "chown_root", [], "transport_error", "transport_error", task="t2")
    make_run(root, "missed", "chown_root", [], "harness_error", "harness_error", landed=False, task="t3",
             blocker_active_at_end=None)
    make_run(root, "other-card", "removed_dependency", [("", [bash("ls", "x")])], "budget_exhausted",
             "budget_exhausted")
    make_run(root, "control", "none", [("", [finish("task_complete", "done")])], "task_complete", "resolved",
             resolved=True)
    make_run(root, "cut-short", "chown_root", [("", [bash("ls", "x")])], "budget_exhausted", "budget_exhausted",
             finished=False, task="t4")
    return root


def test_a_blocker_that_did_not_land_is_a_harness_error_whatever_the_ending():
    assert scored_outcome(EpisodeEnd(Ending.HARNESS_ERROR, "the blocker was not in place at start"), None,
                          blocked=True) == Outcome.HARNESS_ERROR


def test_each_run_says_whether_its_blocker_landed(tmp_path):
    rows = {a.row.run_id: a.row for a in annotate_paths([runs(tmp_path)]).annotations}
    assert rows["landed"].blocker_landed is True and rows["landed-transport"].blocker_landed is True
    assert rows["missed"].blocker_landed is False and rows["missed"].outcome == "harness_error"
    assert rows["control"].blocker_landed is None  # nothing to land
    assert rows["cut-short"].blocker_landed is None  # no result: nothing says


def test_a_blocked_run_that_recorded_no_probe_did_not_land(tmp_path):
    path = make_run(tmp_path, "silent", "chown_root", [("", [bash("ls", "x")])], "budget_exhausted",
                    "budget_exhausted")
    result = json.loads((path / "result.json").read_text())
    del result["blocker_active_at_start"]
    (path / "result.json").write_text(json.dumps(result))
    (row,) = [a.row for a in annotate_paths([tmp_path]).annotations]
    assert row.blocker_landed is False


def test_the_aggregates_give_each_card_its_landed_share_over_every_run(tmp_path):
    summary = aggregate(annotate_paths([runs(tmp_path)]).annotations)
    assert summary["landing"] == {"chown_root": {"runs": 3, "landed": 2, "share": 0.6667},
                                  "removed_dependency": {"runs": 1, "landed": 1, "share": 1.0}}
    groups = {g["condition"]: g for g in summary["groups"]}
    assert groups["chown_root"]["blocker_landed"] == 0.6667  # the transport error counts: landing is the harness's
    assert groups["(blocked, pooled)"]["blocker_landed"] == 0.75
    assert groups["none"]["blocker_landed"] is None


def test_annotate_shows_the_landed_share_per_card(tmp_path):
    folder = runs(tmp_path / "runs")
    done = CliRunner().invoke(app, ["annotate", str(folder), "--json", str(tmp_path / "a.json")], terminal_width=250)
    assert done.exit_code == 0, done.output
    assert "blockers that landed" in done.output  # beside the verdicts, as beside the metric columns
    landing_rows = [line for line in done.output.splitlines() if "chown_root" in line and "0.67" in line]
    assert landing_rows, done.output
    wide = CliRunner().invoke(app, ["annotate", str(folder), "--wide"], terminal_width=250)
    assert "blocker landed" in wide.output and "blockers that landed" in wide.output
    rows = {r["run_id"]: r for r in json.loads((tmp_path / "a.json").read_text())}
    assert (rows["missed"]["blocker_landed"], rows["landed"]["blocker_landed"]) == (False, True)


def test_the_report_shows_the_landed_share_per_card(tmp_path):
    write_report([runs(tmp_path / "runs")], tmp_path / "r.html", tmp_path / "r.md")
    section = (tmp_path / "r.html").read_text().split("<h2>Blockers that landed</h2>")[1].split("<h2>")[0]
    assert "<td>chown_root</td><td>3</td><td>2</td><td>0.6667</td>" in section
    assert "<td>removed_dependency</td><td>1</td><td>1</td><td>1.0</td>" in section
    assert "| chown_root | 3 | 2 | 0.6667 |" in (tmp_path / "r.md").read_text()
