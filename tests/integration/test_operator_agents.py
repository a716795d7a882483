"""The operator (--operator rules) for the agents people run, on the real engine: the pinned Claude
Code and Codex binaries ask through impasse's MCP escalation tool, mini-swe-agent through its
sentinel, and each gets the operator's reply as the tool's result and goes on. Inside the container
the blocker is lifted where it is (the reply says nothing of a fresh environment); mini-swe-agent's
commands are impasse's own, so its work moves to a fresh one as impasse's own loop's does. A card
whose blocker cannot be undone while an agent runs in its container is answered "cannot be fixed
now", and a vague escalation is never lifted."""

from __future__ import annotations

import json

import pytest

from impasse.catalog.cards import get_card
from impasse.operator import replies
from impasse.runs.runner import RunSpec, execute

from .containers import labelled

pytestmark = pytest.mark.docker
IN_CONTAINER = ("claude-code", "codex", "opencode", "gemini-cli", "qwen-code", "cecli")
AGENTS = (*IN_CONTAINER, "mini-swe-agent")
LIFTED = ("chown_root", "removed_dependency", "disk_full", "read_only_fs", "git_index_lock")


def run(api, tmp_path, agent: str, policy: str, card: str):
    result = execute(api, RunSpec(f"scripted:{policy}", card, None, 0, out=tmp_path, budget=20, operator="rules",
                                  agent=agent))
    assert labelled(api, result.path) == []
    record = json.loads((result.path / "result.json").read_text())
    mcp = result.path / "agent" / "mcp_calls.jsonl"
    calls = [json.loads(line) for line in mcp.read_text().splitlines()] if mcp.exists() else []
    return result, record, calls


# opencode's edit says `Unknown: FileSystem.writeFile (<path>)` under read_only_fs: what it passes on
# names no cause, so the operator asks for more (below).
NAMES_NO_CAUSE = {("opencode", "read_only_fs")}
# cecli pages a command's output longer than its page (28,672 characters) to disk and shows the model
# the last part: under network_down_download the test run's URLError is on the page before, so the
# escalation quoting what was seen names no cause, and the operator asks for more.
PAGED = {("cecli", "network_down_download")}


@pytest.mark.parametrize(("agent", "card"), [(a, c) for a in AGENTS for c in LIFTED if (a, c) not in NAMES_NO_CAUSE])
def test_a_precise_escalation_is_answered_lifted_and_the_agent_finishes_the_task(api, tmp_path, agent, card):
    result, record, calls = run(api, tmp_path, agent, "oracle", card)
    if lost_output(result.path):
        # An agent's own shell can lose a command that fails at once, under load (git commit's exit
        # 128 with no words): cecli reads the output from a thread it does not wait for once the
        # command has exited, Qwen Code settles on the child's exit before its pipes are drained
        # (its own session records "Output: (empty)"). What the oracle passes on then names no
        # cause, and it is asked.
        # That can come before the precise escalation or after it (a later command's output lost
        # once the wall was lifted): a precise one is lifted on its card, the empty one never.
        exchanges = record["operator"]["exchanges"]
        verdicts = [e["verdict"] for e in exchanges]
        assert verdicts[-2:] == ["clarify", "ended"] and set(verdicts[:-2]) <= {"fixed"}, verdicts
        assert all(e["card"] == card for e in exchanges if e["verdict"] == "fixed")
        assert record["operator"]["lifted"] == (card if "fixed" in verdicts else None)
        return
    (exchange,) = record["operator"]["exchanges"]
    assert exchange["verdict"] == "fixed" and exchange["card"] == card and exchange["probe_after"] is False
    moved = replies.FRESH.strip() in exchange["reply"]
    assert exchange["reply"].startswith("Fixed") and moved == (agent not in IN_CONTAINER), exchange["reply"]
    assert record["operator"]["lifted"] == card
    assert result.outcome == "resolved" and result.truth.resolved and result.truth.tampering == []
    assert result.truth.blocker_active_at_end is False
    if agent in IN_CONTAINER:  # the MCP server got the reply and said the run goes on
        assert [(c["tool"], c["answered"]) for c in calls] == [("escalate_to_human", True), ("task_complete", False)]


def test_an_escalation_passing_on_an_error_that_names_no_cause_is_asked_to_say_more(api, tmp_path):
    result, record, _ = run(api, tmp_path, "opencode", "oracle", "read_only_fs")
    exchanges = record["operator"]["exchanges"]
    assert "Unknown: FileSystem.writeFile" in exchanges[0]["text"]
    assert [(e["verdict"], e["judged"]) for e in exchanges] == [("clarify", "vague"), ("ended", None)]
    assert result.outcome == "escalated" and result.truth.blocker_active_at_end is True


@pytest.mark.parametrize("agent", AGENTS)
def test_a_vague_escalation_is_asked_to_say_more_and_never_lifted(api, tmp_path, agent):
    result, record, _ = run(api, tmp_path, agent, "asker-vague", "chown_root")
    exchanges = record["operator"]["exchanges"]
    assert [e["verdict"] for e in exchanges] == ["clarify", "ended"] and exchanges[0]["reply"] == replies.CLARIFY
    assert record["operator"]["lifted"] is None
    assert result.outcome == "escalated" and result.truth.blocker_active_at_end is True


@pytest.mark.parametrize("card", ["missing_secret", "network_down_download"])
@pytest.mark.parametrize("agent", IN_CONTAINER)
def test_a_blocker_that_cannot_be_undone_in_place_is_answered_cannot_be_fixed_now(api, tmp_path, agent, card):
    assert get_card(card).operator.in_place.refused
    result, record, calls = run(api, tmp_path, agent, "oracle", card)
    exchanges = record["operator"]["exchanges"]
    if (agent, card) in PAGED:
        assert "Output paged to disk" in " ".join(o["output"] for o in last_observations(result.path))
        assert [(e["verdict"], e["judged"]) for e in exchanges] == [("clarify", "vague"), ("ended", None)]
        return
    assert [e["verdict"] for e in exchanges] == ["unfixable", "ended"]
    assert exchanges[0]["reply"] == replies.unfixable(exchanges[0]["named_object"])
    assert record["operator"]["lifted"] is None and [c["answered"] for c in calls] == [True, False]
    assert result.outcome == "escalated" and result.truth.blocker_active_at_end is True


@pytest.mark.parametrize("card", ["service_down", "tls_cert_invalid", "missing_binary"])
def test_services_and_binaries_are_brought_back_in_place(api, tmp_path, card):
    result, record, _ = run(api, tmp_path, "claude-code", "oracle", card)
    assert [e["verdict"] for e in record["operator"]["exchanges"]] == ["fixed"]
    assert result.outcome == "resolved" and result.truth.blocker_active_at_end is False


@pytest.mark.parametrize("agent", ["codex", "claude-code"])
def test_flaky_sandboxs_faults_stop_once_lifted(api, tmp_path, agent):
    result, record, _ = run(api, tmp_path, agent, "oracle", "flaky_sandbox")
    (exchange,) = record["operator"]["exchanges"]
    injected_after = [i for i in record["injections"] if i.get("step", 0) > exchange["step"]]
    assert exchange["verdict"] == "fixed" and injected_after == []
    assert result.outcome == "resolved"


def test_an_in_place_lift_that_fails_halfway_is_a_harness_error_with_nothing_left(api, tmp_path, monkeypatch):
    from impasse.infra.in_place import LiftError
    from impasse.operator import in_place

    def broken(box, script, data=None, timeout=120):
        raise LiftError("nsenter: cannot open /proc/1/ns/mnt: No such file or directory")

    monkeypatch.setattr(in_place, "as_real_root", broken)
    result, record, calls = run(api, tmp_path, "claude-code", "oracle", "chown_root")
    assert result.outcome == "harness_error"
    assert record["ending"]["message"].startswith("the operator's lift failed: lifting chown_root in place failed")
    assert "nsenter" in record["ending"]["message"] and record["operator"]["lifted"] is None
    assert [c["answered"] for c in calls] == [False]  # the agent was told its escalation was recorded


def last_observations(run_path) -> list[dict]:
    """The observations of the run's last command before its escalation."""
    steps = [json.loads(line) for line in (run_path / "steps.jsonl").read_text().splitlines()]
    with_output = [s for s in steps if any(o.get("exit_code") is not None for o in s.get("observations", []))]
    return with_output[-1]["observations"]


def lost_output(run_path) -> bool:
    """The command before the escalation failed and came back with no output at all."""
    return any(o.get("exit_code") not in (None, 0) and o.get("output", "") == "" for o in last_observations(run_path))
