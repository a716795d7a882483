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
                                        ("colour: red", "unknown keys"), ("split: huge", "split")])
def test_a_bad_setting_is_named(tmp_path: Path, line: str, named: str):
    path = tmp_path / "m.yaml"
    path.write_text("models: [scripted:oracle]\n" + line + "\n")
    with pytest.raises(MatrixError, match=named):
        load_matrix_file(path)


def test_a_split_adds_its_generated_tasks_beside_every_hand_written_one(tmp_path: Path):
    from impasse.catalog.generated import LITE_SIZE, load_generated, select_split
    from impasse.catalog.tasks import load_tasks
    from impasse.runs.matrix import MatrixSpec
    hand_written = {t.id for t in load_tasks()}
    lite = {g.id for g in select_split(load_generated(), "lite")}
    planned = plan(MatrixSpec(["scripted:oracle"], ["chown_root"], "all", seeds=1, split="lite", out=tmp_path))
    tasks = {p.spec.task for p in planned}
    assert tasks == hand_written | lite and len(lite) == min(LITE_SIZE, len(load_generated()))
    generated = [p for p in planned if p.spec.task in lite]
    assert {p.spec.condition for p in generated} == {"none", "chown_root"}  # every generic card holds on them
    assert len(generated) == 2 * len(lite)
    without = plan(MatrixSpec(["scripted:oracle"], ["chown_root"], "all", seeds=1, out=tmp_path))
    assert {p.spec.task for p in without} == hand_written


def test_a_named_generated_task_runs_without_a_split(tmp_path: Path):
    from impasse.catalog.generated import load_generated
    from impasse.runs.matrix import MatrixSpec
    task = sorted(g.id for g in load_generated())[0]
    planned = plan(MatrixSpec(["scripted:oracle"], ["read_only_fs"], [task], seeds=1, out=tmp_path))
    assert {(p.spec.task, p.spec.condition) for p in planned} == {(task, "none"), (task, "read_only_fs")}
    with pytest.raises(MatrixError, match="nosuch.task"):
        plan(MatrixSpec(["scripted:oracle"], ["none"], ["nosuch.task"], seeds=1, out=tmp_path))


def test_the_agents_axis_plans_each_agent_times_each_model_and_leaves_out_what_an_agent_cannot_take(tmp_path):
    from impasse.runs.matrix import MatrixSpec, not_planned, plan
    spec = MatrixSpec(["scripted:oracle"], ["chown_root", "flaky_sandbox", "oom_kill"],
                      ["invoicekit-tax-rounding", "logpipe-distinct"], agents=["impasse", "codex"], out=tmp_path)
    planned = plan(spec)
    by_agent = {}
    for item in planned:
        by_agent.setdefault(item.spec.agent, set()).add(item.condition.name)
    # oom_kill too: its limit is on the agent's commands, not on the agent (infra/cgroups.py)
    assert by_agent == {"impasse": {"none", "chown_root", "flaky_sandbox", "oom_kill"},
                        "codex@0.171.0": {"none", "chown_root", "flaky_sandbox", "oom_kill"}}
    assert not_planned(spec) == []
    ids = {item.run_id for item in planned}
    assert len(ids) == len(planned)  # an agent's runs never share an id with impasse's own
    assert all(i.run_id.startswith("codex-0.171.0__") for i in planned if i.spec.agent != "impasse")


def test_a_matrix_file_names_its_agents(tmp_path):
    from impasse.runs.matrix import MatrixError, load_matrix_file, plan
    good = tmp_path / "m.yaml"
    good.write_text("models: [scripted:oracle]\nagents: [impasse, claude-code]\n")
    assert load_matrix_file(good).agents == ["impasse", "claude-code"]
    bad = tmp_path / "bad.yaml"
    bad.write_text("models: [scripted:oracle]\nagents: [claude-code]\ngate: marker\n")
    with pytest.raises(MatrixError, match="only --gate tool applies"):
        plan(load_matrix_file(bad))


def test_all_agents_are_every_agent_impasse_runs_none_refused(tmp_path):
    from impasse.agents.pins import AGENTS
    from impasse.runs.matrix import MatrixSpec, not_planned

    spec = MatrixSpec(["scripted:oracle"], ["flaky_sandbox", "oom_kill"], ["invoicekit-tax-rounding"],
                      agents="all", out=tmp_path)
    planned = {item.spec.agent.split("@")[0] for item in plan(spec)}
    assert planned == set(AGENTS) and len(AGENTS) >= 7
    assert not_planned(spec) == []  # every agent takes both cards now
