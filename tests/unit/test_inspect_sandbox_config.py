"""The `impasse` Inspect sandbox's bad input, without Docker: an unknown card or task, a card the task
cannot take, a sample that names no task: one clear line each (Inspect reports it as the sample's
error), before anything starts."""

from __future__ import annotations

import pytest

pytest.importorskip("inspect_ai", reason="the inspect extra is not installed: pip install -e '.[inspect]'")
from impasse.inspect_ext.sandbox import (  # noqa: E402
    ImpasseSandbox,
    ImpasseSandboxConfig,
    SandboxRefused,
    condition_of,
    config_of,
    shell_command,
)

TASK = {"impasse_task": "invoicekit-tax-rounding"}


@pytest.mark.parametrize(("config", "metadata", "said"), [
    ("no_such_card", TASK, "unknown condition 'no_such_card'"),
    ("chown_root", {"impasse_task": "no-such-task"}, "no-such-task"),
    ("missing_binary", TASK, "does not support condition missing_binary"),
    ("chown_root", {}, "needs the sample's metadata to name an impasse task"),
])
def test_a_sandbox_that_cannot_be_is_one_line(config, metadata, said):
    with pytest.raises(SandboxRefused, match=said) as raised:
        condition_of(config, metadata)
    assert "\n" not in str(raised.value).strip()


def test_the_card_is_the_configs_last_part_or_its_model():
    """Inspect makes a string config a path beside the task file."""
    assert config_of("/home/me/evals/chown_root").card == "chown_root"
    assert config_of(ImpasseSandboxConfig(card="read_only_fs", seed=3)).seed == 3
    assert config_of(None).card == "none"
    assert ImpasseSandbox.config_deserialize({"card": "disk_full"}) == ImpasseSandboxConfig(card="disk_full")
    assert condition_of("/x/chown_root", TASK).card.id == "chown_root"


def test_the_command_line_keeps_its_argv_folder_variables_and_input():
    line = shell_command(["python3", "-c", "print('a b')"], "data", "/workspace/sub", {"A": "1 2"})
    assert line.startswith("printf %s ZGF0YQ== | base64 -d | ( cd /workspace/sub && env 'A=1 2' python3 -c")
    assert "'print('\"'\"'a b'\"'\"')'" in line


@pytest.mark.parametrize(("parameters", "said"), [
    ({"condition": "bogus"}, "impasse_tasks: unknown condition 'bogus'"),
    ({"condition": "chown_root", "tasks": "no-such-task"}, "no-such-task"),
    ({"condition": "missing_binary", "tasks": "invoicekit-tax-rounding"},
     "no task of 'invoicekit-tax-rounding' takes the condition missing_binary"),
    ({"condition": "chown_root", "operator": "kindly"}, "impasse_tasks: --operator kindly: unknown; choose rules"),
])
def test_the_tasks_bad_parameters_are_inspects_one_line_error(parameters, said):
    from inspect_ai._util.error import PrerequisiteError

    from impasse.inspect_ext.task import impasse_tasks
    with pytest.raises(PrerequisiteError, match=said):
        impasse_tasks(**parameters)


def test_the_task_takes_the_hand_written_tasks_that_take_the_condition():
    from impasse.inspect_ext.task import impasse_tasks
    made = impasse_tasks(condition="missing_binary")
    assert sorted(s.id for s in made.dataset) == ["logpipe-distinct", "logpipe-level-filter"]
    assert all(s.metadata["impasse_task"] == s.id for s in made.dataset)


def test_the_operator_rides_in_the_sandbox_spec():
    from impasse.inspect_ext.task import impasse_tasks
    assert impasse_tasks(condition="chown_root", operator="rules").sandbox.config.operator == "rules"
    assert impasse_tasks(condition="chown_root").sandbox.config.operator is None


def test_the_interval_resamples_tasks_and_keeps_epochs_together():
    from inspect_ai.scorer import SampleScore, Score

    from impasse.inspect_ext.intervals import bootstrap_ci
    scores = [SampleScore(score=Score(value=v), sample_id=task)
              for task, v in [("a", 1), ("a", 1), ("b", 0), ("b", 0), ("c", 1), ("c", 0)]]
    interval = bootstrap_ci()(scores)
    assert 0 <= interval["low"] < 0.5 < interval["high"] <= 1
    assert bootstrap_ci()(scores) == interval  # seeded
    one = bootstrap_ci()([SampleScore(score=Score(value=1), sample_id="a")] * 3)
    assert one == {"low": 1.0, "high": 1.0}


def test_an_unknown_policy_is_refused_in_one_line():
    from inspect_ai._util.error import PrerequisiteError
    from inspect_ai.model import get_model

    import impasse.inspect_ext._registry  # noqa: F401
    with pytest.raises(PrerequisiteError, match="impasse/bogus: unknown scripted policy"):
        get_model("impasse/bogus")


def test_docker_down_is_the_evals_one_line_error_and_nothing_starts(tmp_path, monkeypatch):
    """No engine at DOCKER_HOST: the sample's sandbox is refused in one line naming how to start it; the
    eval ends in error with no score."""
    from inspect_ai import eval as inspect_eval
    from inspect_ai.model import get_model

    import impasse.inspect_ext._registry  # noqa: F401
    from impasse.inspect_ext.sandbox import engine
    from impasse.inspect_ext.task import impasse_tasks
    monkeypatch.setenv("DOCKER_HOST", f"unix://{tmp_path}/no-engine.sock")
    engine.cache_clear()
    try:
        (log,) = inspect_eval(impasse_tasks(condition="chown_root", tasks="invoicekit-tax-rounding"),
                              model=get_model("impasse/oracle"), log_dir=str(tmp_path / "logs"), display="none")
    finally:
        engine.cache_clear()
    assert log.status == "error"
    assert "Docker is not reachable" in log.error.message and "impasse engine up" in log.error.message
    assert not log.results or not log.results.scores
