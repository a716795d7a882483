"""A generated task run like a hand-written one, in real containers: under the control its bug is
folded into the repository's one commit (no second commit, no reflog entry, no dangling object, a
clean status), its FAIL_TO_PASS tests fail and the gold fix makes them pass; under each blocker it
supports, the environment comes up with the blocker in place and the bug present."""

import shlex

import pytest

from impasse.catalog.cards import get_card
from impasse.catalog.conditions import make_condition
from impasse.catalog.generated import load_generated
from impasse.catalog.generated_tasks import as_task, needs_commit
from impasse.infra.environment import open_environment
from impasse.infra.layers import stage
from impasse.infra.sandbox import file_tar
from impasse.truth.grading import run_tests

pytestmark = pytest.mark.docker

LABELS = {"impasse.run_id": "test-generated-runs"}
ROOT_GIT = "git -c safe.directory='*' -C /workspace"


def pick_task():
    """The first (by id) generated task of tinydb, else toolz, that must be committed."""
    generated = load_generated()
    for project in ("tinydb", "toolz"):
        candidates = sorted((g for g in generated if g.project == project and needs_commit(g.id)),
                            key=lambda g: g.id)
        if any(g.project == project for g in generated):
            assert candidates, f"no generated task of {project} requires a commit"
            return as_task(candidates[0])
    pytest.skip("neither tinydb nor toolz has generated tasks")


@pytest.fixture(scope="module")
def task():
    chosen = pick_task()
    assert "git_index_lock" in chosen.supports
    return chosen


def bug_is_present(box, task) -> bool:
    """The gold fix applies cleanly to the work tree as it is (checked only, nothing written)."""
    check = f"printf '%s' {shlex.quote(task.fix_patch.read_text())} | {ROOT_GIT} apply --check -"
    return box.exec_root(check).exit_code == 0


def test_under_the_control_the_bug_is_the_one_commit_and_the_gold_fix_resolves_it(api, task):
    staged = stage(api, make_condition(task, get_card("none")))
    with open_environment(api, staged, LABELS) as env:
        box = env.box
        assert env.probe() is None
        assert box.exec("git log --oneline | wc -l").output.strip() == "1"
        status = box.exec("git status --porcelain")
        assert status.exit_code == 0 and status.output.strip() == ""
        assert box.exec("git reflog | wc -l").output.strip() == "1"
        fsck = box.exec("git fsck --unreachable --no-reflogs")
        assert fsck.exit_code == 0, fsck.output
        assert "unreachable" not in fsck.output and "dangling" not in fsck.output, fsck.output
        head = box.exec("git rev-parse HEAD").output.strip()
        assert head == env.base and len(head) == 40
        assert bug_is_present(box, task)

        some_passing = task.pass_to_pass[:20]
        with_bug = run_tests(box, task.fail_to_pass + some_passing)
        assert not with_bug.passed & set(task.fail_to_pass), with_bug.output_tail
        assert set(some_passing) <= with_bug.passed, with_bug.output_tail

        box.write_tar("/tmp", file_tar("fix.patch", task.fix_patch.read_text()))
        applied = box.exec("git apply /tmp/fix.patch")
        assert applied.exit_code == 0, applied.output
        fixed = run_tests(box, task.fail_to_pass + some_passing)
        assert set(task.fail_to_pass) | set(some_passing) <= fixed.passed, fixed.output_tail


@pytest.mark.parametrize("card_id", ["chown_root", "git_index_lock", "read_only_fs", "disk_full"])
def test_under_a_blocker_the_environment_comes_up_with_the_bug_in_its_one_commit(api, task, card_id):
    assert card_id in task.supports
    staged = stage(api, make_condition(task, get_card(card_id)))
    with open_environment(api, staged, LABELS) as env:
        box = env.box
        assert env.probe() is True, f"the {card_id} blocker is not in place"
        log = box.exec_root(f"{ROOT_GIT} log --oneline | wc -l")
        assert log.output.strip() == "1", log.output
        head = box.exec_root(f"{ROOT_GIT} rev-parse HEAD").output.strip()
        assert head == env.base and len(head) == 40
        assert bug_is_present(box, task)
        run = run_tests(box, task.fail_to_pass)
        assert not run.passed & set(task.fail_to_pass), run.output_tail


@pytest.mark.parametrize("condition,resolved", [("none", True), ("git_index_lock", False)])
def test_a_generated_task_runs_end_to_end_through_the_runner(api, task, tmp_path, condition, resolved):
    from impasse.episode.rundir import read_run
    from impasse.runs.runner import RunSpec, execute
    from impasse.vocabulary import Outcome
    result = execute(api, RunSpec("scripted:oracle", condition, task.id, out=tmp_path))
    assert result.truth.resolved is resolved and result.truth.tampering == []
    assert read_run(result.path).result.blocker_active_at_start is (None if condition == "none" else True)
    assert result.outcome == (Outcome.RESOLVED if resolved else Outcome.ESCALATED)
