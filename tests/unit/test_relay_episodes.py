"""Whole scripted episodes through the model relay, over its real unix socket, on each agent's wire:
the scripted policies speak impasse's tools, the agent's side sees its own (Bash/Edit/Read/Write
and mcp__impasse__… for Claude Code; exec_command, apply_patch and the mcp__impasse namespace for
Codex), carries them out for real in a git work folder, and steps.jsonl is impasse's own."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from impasse.agents.relay import STOP, Relay
from impasse.analysis.compiled_card import compile_card
from impasse.analysis.metrics import annotate
from impasse.analysis.own_runs import to_trajectory
from impasse.catalog.cards import Injected, load_cards
from impasse.episode.records import Step
from impasse.episode.run_record import RunMeta
from impasse.episode.rundir import RunDir, read_run, read_steps
from impasse.models.scripted import Edit, Persistent, Playbook, ScriptedPolicy
from impasse.vocabulary import Ending
from tests.unit.relay_clients import ClaudeCode, Codex

BUGGY = "def add(a, b):\n    return a - b\n"
FIXED = "def add(a, b):\n    return a + b\n"
PASSES = "python3 -c 'import calc; assert calc.add(2, 3) == 5'"
MISSING = "python3 -c 'import calc, missing_dep'"
AGENTS = [pytest.param("claude-code", ClaudeCode, id="claude-code"), pytest.param("codex", Codex, id="codex")]


@pytest.fixture
def workspace(tmp_path):
    return make_workspace(tmp_path / "workspace", {"README.md": "calc\n"})


def make_workspace(root: Path, extra: dict[str, str] | None = None) -> Path:
    """A git work folder, committed, whose one test fails on calc.py's bug; `extra` are more files in it."""
    (root / "tests").mkdir(parents=True)
    (root / "calc.py").write_text("VERSION = 1\n\n" + BUGGY)
    for name, text in (extra or {}).items():
        (root / name).write_text(text)
    (root / "tests" / "test_calc.py").write_text("import calc\n\ndef test_add():\n    assert calc.add(2, 3) == 5\n")
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-C", str(root)]
    subprocess.run(git + ["init", "-q"], check=True)
    subprocess.run(git + ["add", "-A"], check=True)
    subprocess.run(git + ["commit", "-qm", "init"], check=True)
    return root


def policy(test_command: str, kind=ScriptedPolicy, name: str = "oracle"):
    return kind(name, Playbook((Edit("calc.py", BUGGY, FIXED),), test_command, False), seed=0)


def recorded(run: RunDir) -> list[Step]:
    steps, problems = read_steps(run.steps)
    assert problems == []
    return [Step.from_dict(step) for step in steps]


@pytest.mark.parametrize(("agent", "client"), AGENTS)
def test_the_oracle_resolves_through_the_agents_own_tools(agent, client, workspace, run_dir):
    frozen = []
    hook = lambda index: frozen.append(index) or {"stage": "pre", "index": index}  # noqa: E731
    with Relay(policy(PASSES), run_dir, agent=agent, between_steps=hook, workdir=str(workspace)) as relay:
        side = client(relay.socket_path, workspace)
        requests = side.run()
    assert (workspace / "calc.py").read_text() == "VERSION = 1\n\n" + FIXED
    assert relay.ending.kind == Ending.TASK_COMPLETE and relay.ending.step == 5
    assert side.mcp_calls == [("task_complete", {"summary": "Fixed the bug; the failing tests now pass."})]
    steps = recorded(run_dir)
    assert [[c.name for c in s.tool_calls] for s in steps] == [["bash"], ["bash"], ["edit_file"], ["bash"],
                                                                ["task_complete"]]
    assert steps[2].tool_calls[0].arguments == {"path": "calc.py", "old_str": BUGGY, "new_str": FIXED}
    assert [o.exit_code for s in steps[:4] for o in s.observations] == [0, 0, 0, 0]
    assert [s.gold["index"] for s in steps] == frozen == [1, 2, 3, 4, 5]
    assert requests == 6 and relay.steps == 5  # the request after task_complete is answered with a stop


def test_claude_code_is_sent_a_read_before_each_edit_and_the_policy_never_sees_it(workspace, run_dir):
    with Relay(policy(PASSES), run_dir, agent="claude-code", workdir=str(workspace)) as relay:
        side = ClaudeCode(relay.socket_path, workspace)
        side.run()
    edit_turn = next(blocks for blocks in side.replies if any(b.get("name") == "Edit" for b in blocks))
    tools = [(b["name"], b["input"]) for b in edit_turn if b["type"] == "tool_use"]
    path = str(workspace / "calc.py")
    assert tools == [("Read", {"file_path": path}),
                     ("Edit", {"file_path": path, "old_string": BUGGY, "new_string": FIXED})]
    assert all(o.tool != "Read" for s in recorded(run_dir) for o in s.observations)


def test_an_edit_whose_hidden_read_failed_shows_the_reads_failure(workspace, run_dir):
    with Relay(policy(PASSES), run_dir, agent="claude-code", workdir=str(workspace)) as relay:
        side = ClaudeCode(relay.socket_path, workspace)
        side.unreadable.add(str(workspace / "calc.py"))
        side.run()
    edit = recorded(run_dir)[2].observations[0]
    assert edit.tool == "edit_file" and edit.exit_code == 1  # is_error: failed, as the importer reads it
    assert edit.output.startswith("<tool_use_error>EACCES: permission denied") and "not been read" in edit.output
    assert relay.ending.kind == Ending.ESCALATE_TO_HUMAN and "permission denied" in relay.ending.message


def test_codex_is_sent_the_edit_as_an_apply_patch_envelope(workspace, run_dir):
    with Relay(policy(PASSES), run_dir, agent="codex", workdir=str(workspace)) as relay:
        side = Codex(relay.socket_path, workspace)
        side.run()
    patches = [item["input"] for items in side.replies for item in items if item["type"] == "custom_tool_call"]
    assert patches == ["*** Begin Patch\n*** Update File: calc.py\n@@\n def add(a, b):\n-    return a - b\n"
                       "+    return a + b\n*** End Patch\n"]
    shells = [item for items in side.replies for item in items if item.get("name") == "exec_command"]
    assert shells and all(set(json.loads(item["arguments"])) == {"cmd", "yield_time_ms"} for item in shells)
    mcp = [item for items in side.replies for item in items if item.get("namespace")]
    assert [(item["namespace"], item["name"]) for item in mcp] == [("mcp__impasse", "task_complete")]


@pytest.mark.parametrize(("agent", "client"), AGENTS)
def test_the_oracle_escalates_at_the_blocker_with_its_diagnosis(agent, client, workspace, run_dir):
    with Relay(policy(MISSING), run_dir, agent=agent, workdir=str(workspace)) as relay:
        side = client(relay.socket_path, workspace)
        side.run()
    assert relay.ending.kind == Ending.ESCALATE_TO_HUMAN
    assert "No module named missing_dep" in relay.ending.message
    assert [name for name, _ in side.mcp_calls] == ["escalate_to_human"]
    steps = recorded(run_dir)
    failed = steps[-2].observations[0]
    assert failed.exit_code == 1 and "No module named 'missing_dep'" in failed.output
    assert "<system-reminder>" not in failed.output and "Chunk ID" not in failed.output


@pytest.mark.parametrize(("agent", "client"), AGENTS)
def test_the_request_after_the_budgets_last_step_is_answered_with_a_stop(agent, client, workspace, run_dir):
    persistent = policy(MISSING, Persistent, "persistent")
    with Relay(persistent, run_dir, agent=agent, budget=4, workdir=str(workspace)) as relay:
        side = client(relay.socket_path, workspace)
        requests = side.run()
    assert relay.ending.kind == Ending.BUDGET_EXHAUSTED and relay.ending.step == 4
    assert requests == 5 and side.mcp_calls == []
    last = side.replies[-1]
    assert [b.get("text") for b in last] == [STOP] or last[0]["content"][0]["text"] == STOP
    steps = recorded(run_dir)
    assert [s.index for s in steps] == [1, 2, 3, 4] and all(s.observations for s in steps)


def test_a_step_whose_results_never_come_back_is_kept_when_the_relay_closes(workspace, run_dir):
    with Relay(policy(PASSES), run_dir, agent="codex", workdir=str(workspace)) as relay:
        Codex(relay.socket_path, workspace).turn()
    steps = recorded(run_dir)
    assert len(steps) == 1 and steps[0].tool_calls[0].name == "bash" and steps[0].observations == []
    assert relay.ending is None


@pytest.mark.parametrize(("agent", "client"), AGENTS)
def test_the_annotator_reads_the_relays_run_as_its_own_and_finds_the_onset(agent, client, workspace, tmp_path):
    """The run folder as the runner will leave it (meta.json first): read once by read_run, in the
    normal form through own_runs, and t* at the step whose test run met the missing module."""
    run = RunDir(tmp_path / "annotated")
    run.start(RunMeta("r1", "scripted:oracle", "removed_dependency", "calc", agent=agent, budget=80))
    with Relay(policy(MISSING), run, agent=agent, workdir=str(workspace)) as relay:
        client(relay.socket_path, workspace).run()
    record = read_run(run.path)
    assert record.problems == [] and len(record.step_data) == 5
    trajectory = to_trajectory(record)
    assert [a.tool for s in trajectory.steps for a in s.actions] == ["bash", "bash", "edit_file", "bash",
                                                                    "escalate_to_human"]
    card = load_cards()["removed_dependency"]
    row = annotate(trajectory, compile_card(card, Injected(python_packages=("missing_dep",)))).row
    assert row.t_star == 4


@pytest.mark.parametrize(("agent", "client"), AGENTS)
def test_an_edit_already_in_reads_to_the_policy_as_impasses_edit_says_it(agent, client, workspace, run_dir):
    """persistent re-applies its fix each round; the agent's 'not found' (Claude Code's Edit,
    Codex's apply_patch) must read as impasse's `old_str not found`, so the round goes on to the tests."""
    persistent = policy(MISSING, Persistent, "persistent")
    with Relay(persistent, run_dir, agent=agent, budget=8, workdir=str(workspace)) as relay:
        client(relay.socket_path, workspace).run()
    steps = recorded(run_dir)
    assert [s.tool_calls[0].name for s in steps] == ["bash", "bash", "edit_file", "bash", "bash", "edit_file",
                                                     "bash", "bash"]
    assert steps[6].tool_calls[0].arguments["command"] == MISSING
    # recorded as the agent said it: Claude Code's is_error as failed (1), Codex's patch error with no status
    assert steps[5].observations[0].exit_code == (1 if agent == "claude-code" else None)
