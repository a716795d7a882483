"""The runtime sensors read the kernel's own counters; here, from a cgroup tree laid out the way each
cgroup version and engine driver lays it out (the live reading is tested under oom_kill in
tests/integration/test_sensors.py)."""

from __future__ import annotations

import pytest

from impasse.analysis.compiled_card import compile_card
from impasse.analysis.normal_form import Action, NStep, Obs
from impasse.analysis.onsets import lone_onset
from impasse.catalog.cards import get_card
from impasse.infra.sensors import OOM_FILES, OOM_KILLS, Sensors, read_oom_kills
from impasse.vocabulary import Tool

CID = "ab" * 32
V1 = "oom_kill_disable 0\nunder_oom 0\noom_kill {n}\n"
V2 = "low 0\nhigh 0\nmax 12\noom 1\noom_kill {n}\noom_group_kill 0\n"


def cgroup(tmp_path, template, text):
    path = tmp_path / template.format(id=CID)
    path.parent.mkdir(parents=True)
    path.write_text(text)
    return path


@pytest.mark.parametrize("template", OOM_FILES)
def test_each_layout_is_found_and_read_as_a_per_call_delta(tmp_path, template):
    form = V1 if template.endswith("oom_control") else V2
    path = cgroup(tmp_path, template, form.format(n=2))
    sensors = Sensors.attach(CID, root=tmp_path)
    assert sensors is not None and sensors.after_call() == {OOM_KILLS: 0}
    path.write_text(form.format(n=5))
    assert sensors.after_call() == {OOM_KILLS: 3}
    assert sensors.after_call() == {OOM_KILLS: 0}  # a delta: what this call did, not the total


def test_absent_when_the_engine_runs_elsewhere_or_the_kernel_has_no_counter(tmp_path):
    assert Sensors.attach(CID, root=tmp_path) is None  # no cgroup on this host
    cgroup(tmp_path, OOM_FILES[0], "oom_kill_disable 0\nunder_oom 0\n")  # kernel < 4.13
    assert Sensors.attach(CID, root=tmp_path) is None


def test_a_vanished_cgroup_reads_as_no_reading_not_as_zero(tmp_path):
    path = cgroup(tmp_path, OOM_FILES[0], V1.format(n=0))
    sensors = Sensors.attach(CID, root=tmp_path)
    path.unlink()
    assert read_oom_kills(path) is None and sensors.after_call() is None


def step(output, exit_code, sensors):
    return NStep(3, "", [Action(Tool.BASH, command="python -m pytest -q 2>&1 | tail -n 3")],
                 [Obs(output, exit_code, sensors=sensors)])


def test_a_silent_kill_in_a_pipeline_is_an_onset_only_by_the_sensor():
    compiled = compile_card(get_card("oom_kill"), None, foreign=False)
    silent = "......F...\n"  # what `pytest | tail` shows when the kernel kills pytest
    assert lone_onset(compiled, step(silent, 0, None)) is None
    assert lone_onset(compiled, step(silent, 0, {OOM_KILLS: 0})) is None
    match = lone_onset(compiled, step(silent, 0, {OOM_KILLS: 1}))
    assert match and match.step == 3 and "oom_kills +1" in match.reason


def test_a_card_that_names_no_sensor_ignores_its_reading():
    compiled = compile_card(get_card("chown_root"), None, foreign=False)
    assert lone_onset(compiled, step("ok\n", 0, {OOM_KILLS: 1})) is None
