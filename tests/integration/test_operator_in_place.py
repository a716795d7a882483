"""The operator's lift where the blocker is, for an agent inside its container (Claude Code, Codex),
on the real engine: every card's `operator.in_place` undoes its blocker in a running container of the
blocked condition (the card's own probe, asked as the agent, says it is gone afterwards), or the card
gives the reason it cannot, and that reason holds here."""

from __future__ import annotations

import docker.errors
import pytest

from impasse.catalog.cards import get_card, load_cards
from impasse.catalog.conditions import make_condition
from impasse.episode.tools import agent_executor
from impasse.infra.environment import open_environment
from impasse.infra.layers import stage
from impasse.operator.desk import Operator
from impasse.runs.runner import default_task

from .containers import labelled, own_id

pytestmark = pytest.mark.docker
LABELS = {"impasse.run_id": own_id("test-operator-in-place")}
LIFTED = sorted(c for c, card in load_cards().items() if not card.is_control and not card.operator.in_place.refused)


@pytest.mark.parametrize("card_id", LIFTED)
def test_every_liftable_card_is_undone_in_the_running_container(api, card_id):
    card, labels = get_card(card_id), {"impasse.run_id": own_id(f"test-operator-in-place-{card_id}")}  # side by side
    staged = stage(api, make_condition(default_task(card), card))
    with open_environment(api, staged, labels) as env, agent_executor(env.box, None, 60) as executor:
        assert env.probe(executor.harness_check) is True
        before = env.box.container.id
        operator = Operator(api, env, executor, lambda box: None, labels, in_place_only=True)
        try:
            operator.lift_here(card)  # raises LiftFailed where the probe still finds the blocker
        finally:
            operator.close()
        assert env.probe(executor.harness_check) is False
        assert env.box.container.id == before and operator.env.box is env.box  # the same container: nothing moved
        assert operator.env.staged is operator.control  # graded from now on as the control's image has it
        if card_id in ("chown_root", "read_only_fs", "disk_full", "git_index_lock"):
            wrote = env.box.exec("touch /workspace/.written && git add -A && git commit -qm lifted && echo ok")
            assert wrote.output.strip().endswith("ok"), wrote.output
    assert labelled(api, labels["impasse.run_id"]) == []  # the control container restore used is gone too


def test_network_down_downloads_reason_holds_the_engine_refuses_a_network_to_such_a_container(api):
    card = get_card("network_down_download")
    assert "private (none) mode" in card.operator.in_place.refused
    staged = stage(api, make_condition(default_task(card), card))
    with open_environment(api, staged, LABELS) as env:
        network = api.networks.create("impasse-test-in-place", internal=True, labels={"impasse": "1", **LABELS})
        try:
            with pytest.raises(docker.errors.APIError, match=r"private \(none\) mode"):
                network.connect(env.box.container)
        finally:
            network.remove()
