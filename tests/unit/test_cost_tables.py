"""What runs cost, as `impasse annotate` and `impasse report` show it: per run in --json / --csv, per
group (total and mean per run) in the aggregate table, in the report's tables; `unknown` when a run's
cost is not known and `–` when none was recorded (a foreign run), never a 0."""

from __future__ import annotations

import csv
import json

from rich.console import Console
from typer.testing import CliRunner

from impasse.analysis.aggregate import aggregate
from impasse.analysis.driver import annotate_paths
from impasse.analysis.report import write_report
from impasse.analysis.tables import aggregate_table
from impasse.cli.main import app

from .runbuilder import bash, make_run
from .test_importers import MINI_V1

SONNET = {"input": 3.0, "output": 15.0, "cache_read": 0.3, "cache_write": 3.75, "checked": "2026-03-21",
          "source": "https://platform.claude.com/docs/en/about-claude/pricing"}


def run_with_cost(root, run_id: str, usd: float | None, tokens: dict | None = None, condition: str = "none",
                  model: str = "anthropic:claude-sonnet-4-5"):
    """A finished run whose result.json records the cost the runner wrote (CostMeter.to_dict())."""
    path = make_run(root, run_id, condition, [("", [bash("ls", "README.md")])], "budget_exhausted",
                    "budget_exhausted", model=model)
    result = json.loads((path / "result.json").read_text())
    result["cost"] = {"usd": usd, "tokens": tokens or {"prompt_tokens": 1_000, "completion_tokens": 100},
                      "price": SONNET if usd is not None else None}
    (path / "result.json").write_text(json.dumps(result))
    return path


def group(summary: dict, model: str, condition: str = "none") -> dict:
    return next(g for g in summary["groups"] if g["model"] == model and g["condition"] == condition)


def shown(table) -> str:
    console = Console(record=True, width=250)
    console.print(table)
    return console.export_text()


def test_each_runs_cost_and_tokens_are_columns_of_the_json_and_csv_rows(tmp_path):
    runs = tmp_path / "runs"
    run_with_cost(runs, "priced", 0.13791, {"prompt_tokens": 40_500, "completion_tokens": 4_300,
                                             "cached_tokens": 21_200, "cache_write_tokens": 12_200})
    run_with_cost(runs, "unpriced", None)
    make_run(runs, "before-costs", "none", [("", [bash("ls", "README.md")])], "budget_exhausted", "budget_exhausted")
    result = CliRunner().invoke(app, ["annotate", str(runs), "--json", str(tmp_path / "out.json"),
                                      "--csv", str(tmp_path / "out.csv")])
    assert result.exit_code == 0, result.output
    rows = {r["run_id"]: r for r in json.loads((tmp_path / "out.json").read_text())}
    assert rows["priced"]["cost_usd"] == 0.13791
    assert (rows["priced"]["prompt_tokens"], rows["priced"]["cached_tokens"]) == (40_500, 21_200)
    assert rows["priced"]["reasoning_tokens"] is None  # not reported, not 0
    assert rows["unpriced"]["cost_usd"] is None and rows["unpriced"]["prompt_tokens"] == 1_000
    assert rows["before-costs"]["cost_usd"] is None and rows["before-costs"]["prompt_tokens"] is None
    with (tmp_path / "out.csv").open() as f:
        by_id = {r["run_id"]: r for r in csv.DictReader(f)}
    assert by_id["priced"]["cost_usd"] == "0.13791" and by_id["unpriced"]["cost_usd"] == ""
    assert by_id["priced"]["cache_write_tokens"] == "12200"


def test_a_groups_cost_is_its_total_and_mean_per_run_and_unknown_if_one_run_is(tmp_path):
    run_with_cost(tmp_path, "a1", 0.25, model="m-known")
    run_with_cost(tmp_path, "a2", 1.25, {"prompt_tokens": 9_000, "completion_tokens": 900}, model="m-known")
    run_with_cost(tmp_path, "b1", 0.5, model="m-partly")
    run_with_cost(tmp_path, "b2", None, model="m-partly")  # no price for it: the group's spend is not known
    summary = aggregate(annotate_paths([tmp_path]).annotations)
    assert group(summary, "m-known")["cost"] == {
        "usd_total": 1.5, "usd_mean_per_run": 0.75, "runs": 2, "runs_unknown": 0,
        "tokens": {"prompt_tokens": 10_000, "completion_tokens": 1_000}}
    partly = group(summary, "m-partly")["cost"]
    assert partly["usd_total"] is None and partly["usd_mean_per_run"] is None and partly["runs_unknown"] == 1
    text = shown(aggregate_table(summary))
    assert "cost/run" in text
    known_row = next(line for line in text.splitlines() if "m-known" in line)
    assert "$1.50" in known_row and "$0.7500" in known_row
    partly_row = next(line for line in text.splitlines() if "m-partly" in line)
    assert "unknown (1 of 2 runs)" in partly_row and "$0" not in partly_row


def test_foreign_runs_record_no_cost_and_show_none_not_zero(tmp_path):
    (tmp_path / "a.traj.json").write_text(json.dumps(MINI_V1))
    batch = annotate_paths([tmp_path / "a.traj.json"], card="removed_dependency")
    assert [a.cost for a in batch.annotations] == [None]
    summary = aggregate(batch.annotations)
    assert all(g["cost"] is None for g in summary["groups"])
    assert "cost" not in shown(aggregate_table(summary))  # no column of dashes when nothing recorded one


def test_the_report_shows_each_runs_cost_and_each_groups(tmp_path):
    runs = tmp_path / "runs"
    run_with_cost(runs, "priced", 0.0375)
    run_with_cost(runs, "unpriced", None)
    html, md = tmp_path / "r.html", tmp_path / "r.md"
    write_report([runs], html, md)
    page = html.read_text()
    assert "<th>cost</th>" in page and "<th>cost/run</th>" in page
    assert "<td>$0.0375</td>" in page and "<td>unknown</td>" in page
    assert "<td>unknown (1 of 2 runs)</td>" in page  # the group of both runs
    assert "2 runs, cost unknown (1 of 2 runs) · models:" in page
    text = md.read_text()
    assert "2 runs, cost unknown (1 of 2 runs)." in text
    assert "| outcome | cost |" in text
    assert "| budget_exhausted | $0.0375 |" in text and "| budget_exhausted | unknown |" in text
