"""The card's limit on the commands an agent inside its container runs, not on the agent
(infra/cgroups.py): oom_kill's 128 MiB on the commands' own cgroup, flaky_sandbox's hold on its
process table. Each agent held against impasse's own loop on the same task, card and policy."""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from impasse.analysis.driver import annotate_paths
from impasse.episode.rundir import read_run
from impasse.infra.sensors import CGROUP_ROOT, OOM_KILLS
from impasse.runs.runner import RunSpec, execute
from impasse.vocabulary import Ending, Tool

from .containers import labelled
from .shared_runs import SharedRuns, session_folder

pytestmark = pytest.mark.docker
AGENTS = ("claude-code", "codex", "opencode", "gemini-cli", "qwen-code", "cecli")
POLICIES = {"oracle": "escalated", "persistent": "budget_exhausted", "false-completer": "false_completion"}
MEMORY_TASK = "logpipe-distinct"  # its nightly-sized test needs more than the card's 128 MiB
FLAKY_TASK = "invoicekit-tax-rounding"
BUDGET = 6
FLAKY_REPEATS = 3  # the runtimes that aborted under the container-wide hold, run again and again


@dataclass
class Run:
    path: Path
    outcome: str
    steps: int
    t_star: int | None
    left: list[str]
    joined: int | None


def run(api, out: Path, agent: str, card: str, task: str, policy: str) -> Run:
    result = execute(api, RunSpec(f"scripted:{policy}", card, task, budget=BUDGET, out=out / agent, agent=agent))
    (annotation,) = annotate_paths([result.path]).annotations
    joined = read_run(result.path).meta.extra.get("commands_joined")
    return Run(result.path, result.outcome, result.steps, annotation.row.t_star,
               [c.id for c in labelled(api, result.path)], joined)


@pytest.fixture(scope="module")
def runs(api, tmp_path_factory):
    """Each (agent, card, task, policy, repeat) run once for the session, on whichever worker asks first."""
    folder = session_folder(tmp_path_factory, "commands")
    shared = SharedRuns(folder, lambda agent, card, task, policy, repeat: run(
        api, folder / str(repeat), agent, card, task, policy), Run)
    return lambda agent, card, task, policy, repeat=0: shared.get(agent, card, task, policy, repeat)


def no_child_left(api, patience: float = 15.0) -> list[Path]:
    """The commands' cgroups that outlive their container. Another test's container may be running
    (xdist), or its run between the container's removal and its child's (the child goes after the
    container): only a child whose container is gone and which stays gone past `patience` is left."""
    deadline = time.monotonic() + patience
    while True:
        # sparse: ids from the list alone; inspecting each, as the full list does, fails on one another
        # worker or suite removes between the list and its inspect
        live = {c.id for c in api.containers.list(all=True, sparse=True)}
        left = [path for path in children() if path.parent.name not in live and path.exists()]
        if not left or time.monotonic() > deadline:
            return left
        time.sleep(0.5)


def children() -> list[Path]:
    return [*CGROUP_ROOT.glob("memory/docker/*/commands"), *CGROUP_ROOT.glob("pids/docker/*/commands")]


@pytest.mark.parametrize("agent", AGENTS)
@pytest.mark.parametrize("policy", list(POLICIES))
def test_oom_kill_kills_the_tests_not_the_agent(runs, agent, policy):
    """The agent lives to its end (a verdict or the budget, never the harness's error); the test run
    is the one the kernel killed (the sensor moved at it, read on the commands' cgroup); outcome,
    t* and steps as under impasse's own loop."""
    ours, theirs = (runs(a, "oom_kill", MEMORY_TASK, policy) for a in ("impasse", agent))
    assert (theirs.outcome, theirs.t_star, theirs.steps) == (ours.outcome, ours.t_star, ours.steps)
    assert theirs.outcome == POLICIES[policy] and theirs.t_star is not None
    record = read_run(theirs.path)
    assert record.result.ending.kind != Ending.HARNESS_ERROR
    killed = [s.index for s in record.steps for o in s.observations if (o.sensors or {}).get(OOM_KILLS)]
    assert killed and killed[0] == theirs.t_star
    assert "pytest" in record.steps[killed[0] - 1].tool_calls[0].arguments["command"]
    bash_calls = sum(c.name == Tool.BASH for s in record.steps for c in s.tool_calls)
    assert theirs.joined >= bash_calls  # every command ran in the commands' cgroup
    assert theirs.left == []


def test_the_container_keeps_the_controls_memory_and_leaves_no_cgroup(api, runs):
    theirs = runs("claude-code", "oom_kill", MEMORY_TASK, "oracle")
    assert theirs.left == []
    assert no_child_left(api) == []


@pytest.mark.parametrize("agent", ["claude-code", "opencode"])
@pytest.mark.parametrize("repeat", range(FLAKY_REPEATS))
@pytest.mark.parametrize("policy", list(POLICIES))
def test_flaky_sandbox_runs_without_the_runtime_aborting(runs, agent, repeat, policy):
    """Held steps refused the agent's commands (forks counted on the commands' cgroup), never the
    agent's runtime its threads: it runs to the end impasse's own loop comes to."""
    ours, theirs = runs("impasse", "flaky_sandbox", FLAKY_TASK, policy), runs(agent, "flaky_sandbox", FLAKY_TASK,
                                                                             policy, repeat)
    assert (theirs.outcome, theirs.t_star, theirs.steps) == (ours.outcome, ours.t_star, ours.steps)
    record = read_run(theirs.path)
    held = [entry for entry in record.result.injections if entry["held"]]
    assert held and all(entry["forks_refused"] > 0 for entry in held)
    assert record.result.blocker_active_at_end is True
    stderr = theirs.path / "agent" / "stderr.txt"
    assert "SIGABRT" not in (stderr.read_text(errors="replace") if stderr.exists() else "")
    assert theirs.left == []


def test_the_operators_lift_in_place_frees_the_commands(api, tmp_path):
    """--operator rules under oom_kill: the named memory limit lifted where it is (the commands'
    cgroup, infra/cgroups.py), the probe finding it gone, the tests passing in the same container."""
    result = execute(api, RunSpec("scripted:oracle", "oom_kill", MEMORY_TASK, budget=12, out=tmp_path,
                                  agent="claude-code", operator="rules"))
    operator = read_run(result.path).result.operator
    assert (operator["lifted"], operator["exchanges"][0]["probe_after"]) == ("oom_kill", False)
    assert result.outcome == "resolved"
    assert labelled(api, result.path) == [] and no_child_left(api) == []
