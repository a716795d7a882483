"""An Inspect eval of impasse's task (inspect_ext/task.py) against the real engine, its model impasse's
scripted policies as an Inspect model provider (`impasse/<policy>`): under none, chown_root,
read_only_fs and disk_full, each sample's outcome, steps and t* (from impasse's truth and annotation,
in the scorer) are those `impasse run` gives for the same policy, task and seed; no container is left."""

from __future__ import annotations

import json
import os

import pytest

pytest.importorskip("inspect_ai", reason="the inspect extra is not installed: pip install -e '.[inspect]'")
from inspect_ai import eval as inspect_eval  # noqa: E402
from inspect_ai.model import get_model  # noqa: E402

import impasse.inspect_ext._registry  # noqa: E402,F401  (registers the impasse model provider)
from impasse.analysis.driver import annotate_paths  # noqa: E402
from impasse.inspect_ext.task import impasse_tasks  # noqa: E402
from impasse.runs.runner import RunSpec, execute  # noqa: E402

pytestmark = pytest.mark.docker
TASK = "invoicekit-tax-rounding"
CONDITIONS = ("none", "chown_root", "read_only_fs", "disk_full")
BUDGET = 30


def impasse_run(api, out, policy: str, condition: str) -> tuple[str, int, int | None]:
    result = execute(api, RunSpec(f"scripted:{policy}", condition, TASK, budget=BUDGET, out=out))
    (annotation,) = annotate_paths([result.path]).annotations
    return str(result.outcome), result.steps, annotation.row.t_star


@pytest.mark.parametrize("policy", ["oracle", "persistent", "false-completer"])
def test_an_inspect_eval_matches_impasse_run(api, tmp_path, policy):
    expected = {c: impasse_run(api, tmp_path / "runs", policy, c) for c in CONDITIONS}
    tasks = [impasse_tasks(condition=c, tasks=TASK, budget=BUDGET) for c in CONDITIONS]
    logs = inspect_eval(tasks, model=get_model(f"impasse/{policy}"), log_dir=str(tmp_path / "logs"), display="none")
    seen = {}
    for condition, log in zip(CONDITIONS, logs, strict=True):
        assert log.status == "success", log.error
        (score,) = log.samples[0].scores.values()
        seen[condition] = (score.metadata["outcome"], score.metadata["steps"], score.metadata["t_star"])
        shares = {s.name: s.metrics for s in log.results.scores}
        resolved = shares["resolved"]  # one task: the interval is the share itself
        assert resolved["ci95_low"].value == resolved["ci95_high"].value == resolved["mean"].value
    assert seen == expected
    assert mine(api) == []


def exchanges_of(record: dict | None) -> tuple:
    record = record or {"exchanges": [], "lifted": None}
    return tuple(e["verdict"] for e in record["exchanges"]), record["lifted"]


@pytest.mark.parametrize("policy", ["oracle", "asker-vague"])
def test_the_operator_answers_inside_inspect_as_in_impasse_run(api, tmp_path, policy):
    """`-T operator=rules`: the same replies, the same lift, the same outcome and steps as `impasse run
    --operator rules` (the oracle's precise ask lifted and the task then resolved; the vague ask
    clarified, never lifted); the lift's fresh environment is gone with the sample."""
    result = execute(api, RunSpec(f"scripted:{policy}", "chown_root", TASK, budget=BUDGET, out=tmp_path / "runs",
                                  operator="rules"))
    recorded = json.loads((result.path / "result.json").read_text())["operator"]
    expected = (str(result.outcome), result.steps, exchanges_of(recorded))
    (log,) = inspect_eval(impasse_tasks(condition="chown_root", tasks=TASK, budget=BUDGET, operator="rules"),
                          model=get_model(f"impasse/{policy}"), log_dir=str(tmp_path / "logs"), display="none")
    assert log.status == "success", log.error
    (score,) = log.samples[0].scores.values()
    seen = (score.metadata["outcome"], score.metadata["steps"], exchanges_of(score.metadata["operator"]))
    assert seen == expected
    verdicts, lifted = expected[2]
    if policy == "oracle":
        assert (expected[0], verdicts, lifted) == ("resolved", ("fixed",), "chown_root")
    else:
        assert verdicts[0] == "clarify" and "fixed" not in verdicts and lifted is None
    assert mine(api) == []


def mine(api) -> list:
    """The Inspect sandboxes this process started and left (another suite's beside this one are not)."""
    return api.containers.list(all=True, filters={"label": ["impasse.inspect=1", f"impasse.pid={os.getpid()}"]})
