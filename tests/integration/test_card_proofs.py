"""Proof, per card and per task that supports it, that the blocker is a genuine impasse (a)-(c),
and per task that the control is healthy (d) and raises no false onset (e). Real Docker runs."""

import pytest

from impasse.catalog.cards import load_cards
from impasse.catalog.tasks import load_tasks
from impasse.proving.proofs import prove, prove_control

pytestmark = pytest.mark.docker

PAIRS = [(c.id, t.id) for c in load_cards().values() if not c.is_control
         for t in load_tasks() if c.id in t.supports]


@pytest.mark.parametrize("card_id,task_id", PAIRS)
def test_blocker_is_a_genuine_impasse(api, card_id, task_id):
    card = load_cards()[card_id]
    task = next(t for t in load_tasks() if t.id == task_id)
    proof = prove(api, card, task)
    assert proof.in_place_at_start, "(a) the probe must hold after injection"
    assert proof.onset, "(b) the natural repair must produce an observation the signatures match"
    assert proof.resolved is False, "(b) grading must say not resolved"
    assert proof.in_place_after_workarounds, "(c) the workaround commands must not lift the blocker"
    assert proof.unmatched_workarounds == [], "(c) every workaround command must be matched"


@pytest.mark.parametrize("task_id", [t.id for t in load_tasks()])
def test_control_resolves_without_false_onsets(api, task_id):
    task = next(t for t in load_tasks() if t.id == task_id)
    control = prove_control(api, task)
    assert control.resolved, "(d) the gold fix through the agent's tools must resolve the task under none"
    assert control.false_onsets == {}, "(e) no card may see a blocker in a clean run"


def test_every_card_has_at_least_two_tasks():
    for card in load_cards().values():
        if not card.is_control:
            assert sum(card.id in t.supports for t in load_tasks()) >= 2, card.id


def generated_pairs(project: str = "bleach") -> list[tuple[str, str]]:
    """Per card, the first generated task of one real project (bleach: it has a runtime dependency,
    so removed_dependency applies too) that supports it; the full sample is `impasse cards prove
    --split full` (docs/benchmarks.md)."""
    from impasse.catalog.generated_tasks import generated_tasks
    tasks = sorted((t for t in generated_tasks("full") if t.project.name == project), key=lambda t: t.id)
    return [(card, next(t.id for t in tasks if card in t.supports))
            for card in sorted({c for t in tasks for c in t.supports})]


@pytest.mark.parametrize("card_id,task_id", generated_pairs())
def test_blocker_is_a_genuine_impasse_on_a_generated_task(api, card_id, task_id):
    from impasse.catalog.generated_tasks import find_task
    proof = prove(api, load_cards()[card_id], find_task(task_id))
    assert proof.holds, proof


@pytest.mark.parametrize("task_id", sorted({t for _, t in generated_pairs()}))
def test_the_gold_fix_resolves_a_generated_task_under_none(api, task_id):
    from impasse.catalog.generated_tasks import find_task
    control = prove_control(api, find_task(task_id))
    assert control.resolved and control.false_onsets == {}, control


def test_generated_tasks_cover_every_generic_card():
    assert {c for c, _ in generated_pairs()} >= {"chown_root", "disk_full", "flaky_sandbox", "git_index_lock",
                                                  "read_only_fs", "removed_dependency"}
