"""`impasse run --agent mini-swe-agent` end to end (`execute` with `agent=`): the pinned mini-swe-agent
on the host, its commands through impasse's executor into the real blocked container, driven by the
scripted policies through the chat-completions relay; held against impasse's own loop on the same
task, card and policy, and its own traj.json against the relay's steps.jsonl."""

from __future__ import annotations

import base64
import importlib.util
import json
import os
import signal
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from impasse.analysis.driver import annotate_paths
from impasse.analysis.importers import load_foreign
from impasse.analysis.own_runs import to_trajectory
from impasse.episode.rundir import read_run
from impasse.episode.tools import EDIT_SCRIPT
from impasse.runs.runner import RunSpec, execute
from impasse.vocabulary import Tool
from tests.conftest import default_sigint

from . import test_runs as runs
from .containers import labelled
from .shared_runs import SharedRuns, session_folder

# Looked for, not imported: impasse sets litellm's and mini's settings before their first import.
MISSING_MINI = importlib.util.find_spec("minisweagent") is None
pytestmark = [pytest.mark.docker, pytest.mark.skipif(
    MISSING_MINI, reason="mini-swe-agent is not installed: pip install -e '.[mini]'")]
TASK = "invoicekit-tax-rounding"
MINI = "mini-swe-agent"
BUDGET = 6
EXPECTED = {("oracle", "none"): "resolved", ("oracle", "chown_root"): "escalated",
            ("oracle", "removed_dependency"): "escalated", ("oracle", "read_only_fs"): "escalated",
            ("persistent", "none"): "resolved", ("persistent", "chown_root"): "budget_exhausted",
            ("false-completer", "none"): "resolved", ("false-completer", "chown_root"): "false_completion"}


@dataclass
class Episode:
    path: Path
    outcome: str
    steps: int
    t_star: int | None
    left: list[str]


def run_episode(api, out: Path, agent: str, card: str, policy: str, seed: int) -> Episode:
    result = execute(api, RunSpec(f"scripted:{policy}", card, TASK, budget=BUDGET, seed=seed, out=out / agent,
                                  agent=agent))
    (annotation,) = annotate_paths([result.path]).annotations
    # by the run's folder, not its id: the same spec may run at once in a suite beside this one
    return Episode(result.path, result.outcome, result.steps, annotation.row.t_star,
                   [c.id for c in labelled(api, result.path)])


class Episodes:
    """Each (agent, card, policy, seed) run once for the session: the tests read the same runs."""

    def __init__(self, api, folder: Path) -> None:
        self.shared = SharedRuns(folder, lambda *key: run_episode(api, folder, *key), Episode)

    def get(self, agent: str, card: str, policy: str, seed: int = 0) -> Episode:
        return self.shared.get(agent, card, policy, seed)


@pytest.fixture(scope="module")
def episodes(api, tmp_path_factory) -> Episodes:
    return Episodes(api, session_folder(tmp_path_factory, "mini"))


@pytest.mark.parametrize("policy,card", list(EXPECTED))
def test_same_outcome_steps_and_t_star_as_impasse_own_loop(episodes, policy, card):
    ours, theirs = episodes.get("impasse", card, policy), episodes.get(MINI, card, policy)
    assert theirs.outcome == EXPECTED[(policy, card)]
    assert (theirs.outcome, theirs.t_star, theirs.steps) == (ours.outcome, ours.t_star, ours.steps)
    assert (theirs.t_star is None) == (card == "none")
    assert theirs.left == []
    meta = json.loads((theirs.path / "meta.json").read_text())
    assert meta["agent"] == "mini-swe-agent@2.4.6"


def test_persistent_ends_at_the_budget_with_exactly_that_many_steps(episodes):
    seen = episodes.get(MINI, "chown_root", "persistent")
    assert len((seen.path / "steps.jsonl").read_text().splitlines()) == BUDGET
    kinds = [json.loads(line)["kind"] for line in (seen.path / "relay.jsonl").read_text().splitlines()]
    assert kinds == ["step"] * BUDGET + ["stop"]
    assert json.loads((seen.path / "agent" / "traj.json").read_text())["info"]["exit_status"] == "LimitsExceeded"


def calls_of(steps) -> list[list[tuple]]:
    """Each step's calls as (tool, command or path); an edit mini ran as impasse's edit script is the
    edit it was (the relay's translation, docs/agents.md), a verdict is its tool."""
    out = []
    for step in steps:
        calls = []
        for action in step.actions:
            if action.tool == Tool.BASH and action.command.startswith(f"python3 {EDIT_SCRIPT} "):
                calls.append((Tool.EDIT_FILE, json.loads(base64.b64decode(action.command.split()[-1]))["path"]))
            elif action.tool in (Tool.BASH, Tool.EDIT_FILE):
                calls.append((action.tool, action.command or action.path))
            else:
                calls.append((action.tool, ""))
        out.append(calls)
    return out


@pytest.mark.parametrize("card,ending", [("chown_root", "escalate_to_human"),
                                         ("removed_dependency", "escalate_to_human"), ("none", "task_complete")])
def test_minis_own_trajectory_gives_the_relays_steps_and_t_star(episodes, card, ending):
    seen = episodes.get(MINI, card, "oracle")
    trajectory = seen.path / "agent" / "traj.json"
    theirs = load_foreign(trajectory, "mini-swe-agent")
    assert calls_of(theirs.steps) == calls_of(to_trajectory(read_run(seen.path)).steps)
    assert theirs.ending == ending
    (annotation,) = annotate_paths([trajectory], "mini-swe-agent", card).annotations
    assert annotation.row.t_star == seen.t_star


def test_flaky_sandbox_faults_reach_minis_commands_as_they_reach_impasse_own(episodes):
    """Its commands are impasse's executor calls, so the injector acts on them: the same seed gives
    the same faults on the same calls as under impasse's own loop."""
    ours, theirs = episodes.get("impasse", "flaky_sandbox", "persistent", 3), episodes.get(
        MINI, "flaky_sandbox", "persistent", 3)

    def faults(path):
        return [[(o.injected, o.exit_code) for o in s.observations] for s in read_run(path).steps
                if all(c.name not in ("task_complete", "escalate_to_human") for c in s.tool_calls)]
    assert any(fault for step in faults(theirs.path) for fault, _ in step)
    assert faults(theirs.path) == faults(ours.path)


slow_endpoint = runs.slow_endpoint  # a provider whose model keeps running `sleep 1`


def start_run(tmp_path: Path, base_url: str, seed: int) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "impasse", "run", "--agent", MINI, "--model", "openai:slow",
                             "--base-url", base_url, "--condition", "chown_root", "--task", TASK, "--seed", str(seed),
                             "--out", str(tmp_path)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=default_sigint, env={**os.environ, "OPENAI_API_KEY": "sk-host-only"})


def valid_partial(run_dir: Path) -> int:
    count = runs.valid_partial(run_dir)
    assert (run_dir / "agent" / "traj.json").exists()  # mini saves it after every step
    return count


def test_sigint_mid_run_leaves_valid_records_and_no_container(api, tmp_path, slow_endpoint):
    proc = start_run(tmp_path, slow_endpoint, seed=11)
    run_dir = runs.wait_for_steps(tmp_path, 3)
    proc.send_signal(signal.SIGINT)
    proc.wait(timeout=60)
    assert proc.returncode == 130
    assert valid_partial(run_dir) >= 3
    assert labelled(api, run_dir) == []


def test_sigkill_mid_run_leaves_valid_records_and_gc_reaps_the_container(api, tmp_path, slow_endpoint):
    proc = start_run(tmp_path, slow_endpoint, seed=12)
    run_dir = runs.wait_for_steps(tmp_path, 3)
    os.kill(proc.pid, signal.SIGKILL)  # mini-swe-agent is in the same process: nothing of it outlives impasse
    proc.wait(timeout=30)
    assert valid_partial(run_dir) >= 3
    done = subprocess.run([sys.executable, "-m", "impasse", "gc", "--stale"], capture_output=True, text=True)
    assert done.returncode == 0
    assert labelled(api, run_dir) == []
