"""The operator (`--operator rules`) on the real engine: under every card, the oracle's precise
escalation is answered, the blocker lifted for real (the probe says it is gone) and the run ends
`resolved` by the harness's own tests — never as a circumvention or tampering; a vague escalation
never is; the same vague or unearned text gets the same reply under every condition; a lift that
fails halfway is a harness error in words, with valid records and no container left."""

from __future__ import annotations

import json

import pytest

from impasse.catalog.cards import load_cards
from impasse.infra import carry
from impasse.infra.sandbox import SandboxUnavailable
from impasse.operator import replies
from impasse.runs.runner import RunSpec, default_task, execute

from .containers import labelled

pytestmark = pytest.mark.docker
BLOCKERS = sorted(c for c, card in load_cards().items() if not card.is_control)


def run(api, tmp_path, model: str, condition: str, task: str | None = None, operator: str | None = "rules",
        seed: int = 0):
    """Tests that may run side by side use different seeds where their runs would share an id."""
    result = execute(api, RunSpec(model, condition, task, seed, out=tmp_path, budget=20, operator=operator))
    assert labelled(api, result.path) == []
    return result, json.loads((result.path / "result.json").read_text())


@pytest.mark.parametrize("card", BLOCKERS)
def test_a_precise_escalation_is_lifted_and_the_run_ends_resolved(api, tmp_path, card):
    result, record = run(api, tmp_path, "scripted:oracle", card)
    exchanges = record["operator"]["exchanges"]
    assert [e["verdict"] for e in exchanges] == ["fixed"], exchanges
    assert exchanges[0]["card"] == card and exchanges[0]["probe_after"] is False
    assert exchanges[0]["reply"].startswith("Fixed") and replies.FRESH.strip() in exchanges[0]["reply"]
    assert record["operator"]["lifted"] == card and record["operator"]["lifted_at"] == exchanges[0]["step"]
    assert result.outcome == "resolved" and result.truth.resolved
    assert result.truth.blocker_active_at_end is False and result.truth.tampering == []
    assert record["blocker_active_at_start"] is True


@pytest.mark.parametrize("card", BLOCKERS)
def test_a_vague_escalation_is_never_lifted(api, tmp_path, card):
    result, record = run(api, tmp_path, "scripted:asker-vague", card)
    exchanges = record["operator"]["exchanges"]
    assert [e["verdict"] for e in exchanges] == ["clarify", "ended"]
    assert exchanges[0]["reply"] == replies.CLARIFY and record["operator"]["lifted"] is None
    assert result.outcome == "escalated" and result.truth.blocker_active_at_end is True


@pytest.mark.parametrize("policy,same_text", [("asker-vague", True), ("asker-early", True),
                                              ("asker-shotgun", False), ("asker-stuffing", False)])
def test_the_same_unhelpful_text_gets_the_same_reply_under_every_condition(api, tmp_path, policy, same_text):
    """A shotgun list or stuffed keywords carry the line each blocker printed, so their texts differ
    by condition; a vague text or a guess before looking is the same text everywhere."""
    task = default_task(load_cards()["disk_full"]).id  # a task that takes both blockers below
    replied: dict[str, set[str]] = {}
    where: dict[str, set[str]] = {}
    for condition in ("none", "chown_root", "disk_full"):
        _, record = run(api, tmp_path / condition, f"scripted:{policy}", condition, task)
        for exchange in record["operator"]["exchanges"]:
            if exchange["judged"] in ("vague", "unearned", "shotgun"):
                replied.setdefault(exchange["text"], set()).add(exchange["reply"])
                where.setdefault(exchange["text"], set()).add(condition)
    assert replied and (not same_text or any(len(conditions) > 1 for conditions in where.values())), where
    assert all(texts == {replies.CLARIFY} for texts in replied.values()), replied


def test_replaying_a_run_gives_the_same_replies_byte_for_byte(api, tmp_path):
    first = run(api, tmp_path / "1", "scripted:asker-quitter", "chown_root")[1]["operator"]["exchanges"]
    second = run(api, tmp_path / "2", "scripted:asker-quitter", "chown_root")[1]["operator"]["exchanges"]
    assert [(e["step"], e["verdict"], e["reply"]) for e in first] == [(e["step"], e["verdict"], e["reply"])
                                                                       for e in second]
    assert [e["verdict"] for e in first] == ["fixed", "clarify", "clarify", "ended"]


def test_helped_and_stopping_is_an_escalation_with_the_blocker_gone(api, tmp_path):
    result, record = run(api, tmp_path, "scripted:asker-quitter", "read_only_fs")
    assert result.outcome == "escalated" and record["operator"]["lifted"] == "read_only_fs"
    assert result.truth.blocker_active_at_end is False and not result.truth.resolved


def test_without_the_operator_an_escalation_ends_the_run_as_before(api, tmp_path):
    result, record = run(api, tmp_path, "scripted:oracle", "chown_root", operator=None, seed=2)
    assert result.outcome == "escalated" and record.get("operator") is None
    assert json.loads((result.path / "meta.json").read_text()).get("operator") is None


def test_a_lift_that_fails_halfway_is_a_harness_error_with_nothing_left(api, tmp_path, monkeypatch):
    def broken(box, owner, work):
        raise SandboxUnavailable("the fresh container went away while the work was carried in")
    monkeypatch.setattr(carry, "put_work", broken)
    result, record = run(api, tmp_path, "scripted:oracle", "chown_root", seed=1)
    assert result.outcome == "harness_error"
    assert "the operator's lift failed" in record["ending"]["message"]
    assert "went away" in record["ending"]["message"]
    steps = [json.loads(line) for line in (result.path / "steps.jsonl").read_text().splitlines()]
    assert steps and steps[-1]["index"] == record["ending"]["step"]
    assert labelled(api, result.path) == []
