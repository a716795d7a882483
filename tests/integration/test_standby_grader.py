"""The grader's container is started while the agent works (grading.StandbyGrader) and is still a
fresh container of the condition at grading: nothing is set up in it before (the work tree, the
card's root setup), the grade is the work tree's, and nothing is left behind. A standby that had
not begun when the grading came starts nothing, and the grading starts its own container."""

import threading
import time

import pytest

from impasse.catalog.cards import get_card
from impasse.catalog.conditions import make_condition
from impasse.episode.tools import Executor
from impasse.infra.busy_gate import BUSY, Rank
from impasse.infra.environment import open_environment
from impasse.infra.layers import stage
from impasse.infra.sandbox import Sandbox
from impasse.proving.proofs import natural_repair
from impasse.runs.runner import default_task
from impasse.truth.grading import StandbyGrader, capture_worktree, grade, grading_environment

from .containers import labelled

pytestmark = pytest.mark.docker


def labels_for(name: str) -> dict[str, str]:
    return {"impasse.run_id": f"test-standby-{name}-{time.time_ns()}"}


def graders(api, labels: dict[str, str]) -> list:
    return labelled(api, labels["impasse.run_id"], "impasse.role=grader")


@pytest.fixture(scope="module")
def disk_full(api):
    card = get_card("disk_full")
    return stage(api, make_condition(default_task(card), card))


@pytest.fixture(scope="module")
def control(api, disk_full):
    """The same task under `none`, where the gold fix resolves it (under disk_full nothing does)."""
    return stage(api, make_condition(disk_full.condition.task, get_card("none")))


@pytest.fixture(scope="module")
def work_trees(api, control):
    """The starting work tree and the gold-fixed one, from a real episode container."""
    with open_environment(api, control, labels_for("episode")) as env:
        before = capture_worktree(env.box, env.workspace_owner())[0]
        natural_repair(Executor(env.box), control.condition.task, None)
        return before, capture_worktree(env.box, env.workspace_owner())[0]


def test_the_standby_is_fresh_until_the_grading_sets_it_up(api, disk_full, work_trees):
    labels = labels_for("fresh")
    with StandbyGrader(api, disk_full, labels) as standby:
        standby.started.result(timeout=60)
        [container] = graders(api, labels)
        box = Sandbox(api, container)
        assert box.exec_root("test -e /tmp/.ballast").exit_code != 0  # the root setup has not run
        with grading_environment(api, disk_full, work_trees[1], labels, standby) as env:
            assert env.box.id == container.id
            assert env.box.exec_root("test -e /tmp/.ballast/fill").exit_code == 0
            assert env.box.exec("git diff --quiet").exit_code != 0  # the fixed work tree is in place
    assert graders(api, labels) == []


def test_the_standby_grades_the_work_tree_it_is_given(api, control, work_trees):
    grades = []
    for worktree in work_trees:
        labels = labels_for("grade")
        with StandbyGrader(api, control, labels) as standby:
            standby.started.result(timeout=60)
            grades.append(grade(api, control, worktree, labels, standby=standby))
        assert graders(api, labels) == []
    unfixed, fixed = grades
    assert not unfixed.resolved and not any(unfixed.fail_to_pass.values())
    assert fixed.resolved and all(fixed.fail_to_pass.values())


class SlotsHeld:
    """Every slot of the busy gate held by runs' starts, each given back when asked."""

    def __init__(self) -> None:
        self.count = BUSY.slots.free
        self.release = [threading.Event() for _ in range(self.count)]
        self.entered = threading.Barrier(self.count + 1)
        for event in self.release:
            threading.Thread(target=self.hold, args=(event,), daemon=True).start()
        self.entered.wait(5)

    def hold(self, event: threading.Event) -> None:
        with BUSY.held(Rank.START):
            self.entered.wait(5)
            event.wait(30)

    def give_back_one(self) -> None:
        self.release.pop().set()

    def give_back_all(self) -> None:
        while self.release:
            self.give_back_one()


def wait_until(condition, seconds: float = 10) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.01)


def test_a_standby_still_queued_when_the_run_ends_starts_nothing(api, control):
    labels = labels_for("queued")
    held = SlotsHeld()
    try:
        with StandbyGrader(api, control, labels) as standby:
            wait_until(lambda: BUSY.slots.waiting[Rank.STANDBY] == 1)
        assert standby.state == "abandoned"
    finally:
        held.give_back_all()
    wait_until(lambda: BUSY.slots.waiting[Rank.STANDBY] == 0)
    assert standby.started.result(timeout=10) is None
    assert graders(api, labels) == []


def test_a_grading_that_comes_first_starts_its_own_container(api, control, work_trees):
    labels = labels_for("first")
    held = SlotsHeld()
    result = {}
    try:
        with StandbyGrader(api, control, labels) as standby:
            wait_until(lambda: BUSY.slots.waiting[Rank.STANDBY] == 1)
            grading = threading.Thread(target=lambda: result.update(
                grade=grade(api, control, work_trees[1], labels, standby=standby)))
            grading.start()
            wait_until(lambda: BUSY.slots.waiting[Rank.GRADING] == 1)
            held.give_back_one()  # the grading is served before the standby
            grading.join(120)
            assert standby.state == "abandoned"
            held.give_back_all()
            assert standby.started.result(timeout=10) is None
    finally:
        held.give_back_all()
    assert result["grade"].resolved
    assert graders(api, labels) == []
