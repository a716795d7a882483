"""Proof, per card and per task that supports it, that the blocker is a genuine impasse (a)-(c),
and per task that the control is healthy (d) and raises no false onset (e). Real Docker runs."""

import pytest

from impasse.catalog.cards import load_cards
from impasse.catalog.tasks import load_tasks
from impasse.truth.proofs import prove, prove_control

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
