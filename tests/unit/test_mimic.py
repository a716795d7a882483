"""`scripted:mimic` types like a real agent, deterministically per seed, and ends as its seed says."""

from __future__ import annotations

import pytest

from impasse.catalog.cards import get_card
from impasse.catalog.tasks import load_task_by_id
from impasse.models.policies import make_policy
from impasse.vocabulary import Ending

from .test_agent_loop import FakeExecutor, play

CONTEXT = (load_task_by_id("invoicekit-tax-rounding"), get_card("removed_dependency"))
MISSING = ("E   ModuleNotFoundError: No module named 'yaml'\n1 error in 0.2s", 0)  # piped: status 0


def episode(tmp_path, seed: int, blocked: bool):
    executor = FakeExecutor({"pytest": MISSING} if blocked else {})
    return play(tmp_path, [], model=make_policy("mimic", CONTEXT, seed), executor=executor, budget=20)


@pytest.mark.parametrize("seed,ending", [(0, Ending.ESCALATE_TO_HUMAN), (1, Ending.TASK_COMPLETE),
                                         (2, Ending.BUDGET_EXHAUSTED)])
def test_under_a_blocker_it_ends_as_its_seed_says(tmp_path, seed, ending):
    assert episode(tmp_path, seed, blocked=True).end.kind == ending


@pytest.mark.parametrize("seed", range(3))
def test_unblocked_it_repairs_and_claims(tmp_path, seed):
    assert episode(tmp_path, seed, blocked=False).end.kind == Ending.TASK_COMPLETE


def test_it_types_like_an_agent_and_the_same_seed_types_the_same(tmp_path):
    first = episode(tmp_path / "a", 4, blocked=True).executor.commands
    again = episode(tmp_path / "b", 4, blocked=True).executor.commands
    assert first == again
    typed = " ".join(c for seed in range(6) for c in episode(tmp_path / f"s{seed}", seed, True).executor.commands)
    for idiom in ("| tail -n", "2>&1", "cd /workspace && ", "pip install yaml", "|| echo"):
        assert idiom in typed, idiom
