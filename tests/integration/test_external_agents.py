"""The pinned Claude Code and Codex binaries through the real `impasse run` path (`execute` with
`agent=`), in the real blocked containers, driven by the scripted policies through the relay; each
held against impasse's own loop on the same task, card and policy (the parity goal of issue 26),
and their own transcripts against the relay's steps (the cross-check of item 7)."""

from __future__ import annotations

import base64
import json
import os
import posixpath
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from impasse.agents import external
from impasse.agents.relay import STOP
from impasse.agents.specs import load_specs
from impasse.analysis.driver import annotate_paths
from impasse.analysis.importers import load_foreign
from impasse.analysis.own_runs import to_trajectory
from impasse.episode.rundir import read_run
from impasse.episode.tools import EDIT_SCRIPT
from impasse.infra.sandbox import AGENT_USER
from impasse.runs.runner import RunSpec, execute
from impasse.vocabulary import Tool

from .containers import labelled
from .shared_runs import SharedRuns, session_folder

pytestmark = pytest.mark.docker
TASK = "invoicekit-tax-rounding"
AGENTS = ("claude-code", "codex", "opencode", "gemini-cli", "qwen-code", "cecli")
BUDGET = 6  # scripted:persistent's whole run: every external episode costs seconds
WORKDIR = "/workspace"
# What each policy must come to under the control and under a blocker (as impasse's own loop does)
EXPECTED = {"oracle": ("resolved", "escalated"), "persistent": ("resolved", "budget_exhausted"),
            "false-completer": ("resolved", "false_completion")}
CARDS = ("none", "chown_root", "removed_dependency", "read_only_fs", "disk_full", "flaky_sandbox")
# Where an agent's own tool meets the blocker otherwise than impasse's does (docs/agents.md, "What
# was measured"): under disk_full Claude Code's Edit fails with Node's ENOSPC where impasse's edit
# script, which truncates the file and rewrites it within its own blocks, succeeds.
# Under read_only_fs opencode's edit says only `Unknown: FileSystem.writeFile (<path>)`: its runtime
# reports EROFS as an unknown error, so the step names no cause and t* waits for one that does.
DIFFERS = {("claude-code", "disk_full"), ("qwen-code", "disk_full"), ("opencode", "read_only_fs")}
ENOSPC = "ENOSPC: no space left on device, write\n"


@dataclass
class Episode:
    path: Path
    outcome: str
    steps: int
    t_star: int | None
    interfaces: list[str]  # the container's network interfaces, read by the harness after the agent's run
    left: list[str]  # containers of the run still there once it is over
    mcp: list[dict]  # the MCP server's log (external agents)


def run_episode(api, out: Path, agent: str, card: str, policy: str) -> Episode:
    seen: dict = {}
    keep = external.keep_transcripts

    def kept(box, run_dir, spec):  # the container is still up here: the agent has just ended
        seen["interfaces"] = box.exec("ls /sys/class/net", user=AGENT_USER).output.split()
        keep(box, run_dir, spec)

    out = out / agent
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(external, "keep_transcripts", kept)
        result = execute(api, RunSpec(f"scripted:{policy}", card, TASK, budget=BUDGET, out=out, agent=agent))
        if agent == "cecli" and output_lost(result.path):
            result = execute(api, RunSpec(f"scripted:{policy}", card, TASK, budget=BUDGET, out=out / "again",
                                          agent=agent))
    (annotation,) = annotate_paths([result.path]).annotations
    mcp_log = result.path / "agent" / "mcp_calls.jsonl"
    mcp = [json.loads(line) for line in mcp_log.read_text().splitlines()] if mcp_log.exists() else []
    # The run id is deterministic: another suite may be running the same episode at this moment, so
    # the containers left are this process's own (every container carries its maker's pid).
    left = [c.id for c in labelled(api, result.run_id, f"impasse.pid={os.getpid()}")]
    return Episode(result.path, result.outcome, result.steps, annotation.row.t_star, seen.get("interfaces", []),
                   left, mcp)


def output_lost(path: Path) -> bool:
    """cecli reads a command's output in threads of its own and takes its result the moment the
    command exits (cecli/tools/command.py, `_execute_with_timeout`): on busy cores the last line can
    still be in the pipe, and the model is shown a failing command with no output at all. That run's
    agent saw less than impasse's loop did, so it says nothing of parity, and it is run once more.
    No command of the scripted policies fails silently here: each prints why."""
    return any(o.exit_code not in (0, None) and not o.output.strip()
               for step in read_run(path).steps for o in step.observations)


@pytest.fixture(scope="module")
def episodes(api, tmp_path_factory) -> SharedRuns[Episode]:
    """Each (agent, card, policy) run once for the session: the parity, outcome and transcript tests
    read the same runs, on whichever worker they land."""
    folder = session_folder(tmp_path_factory, "external")
    return SharedRuns(folder, lambda *key: run_episode(api, folder, *key), Episode)


@pytest.mark.parametrize(("agent", "card"), [(a, c) for a in AGENTS for c in CARDS])
@pytest.mark.parametrize("policy", list(EXPECTED))
def test_same_outcome_and_t_star_as_impasse_own_loop(episodes, agent, card, policy):
    ours = episodes.get("impasse", card, policy)
    theirs = episodes.get(agent, card, policy)
    if (agent, card) == ("opencode", "read_only_fs"):
        assert_opencodes_edit_names_no_cause(ours, theirs)
    elif (agent, card) in DIFFERS:
        assert_claude_codes_edit_meets_the_full_disk(ours, theirs)
    else:
        assert (theirs.outcome, theirs.t_star, theirs.steps) == (ours.outcome, ours.t_star, ours.steps)
        assert (theirs.t_star is None) == (card == "none")
    assert theirs.outcome == EXPECTED[policy][card != "none"]
    assert theirs.interfaces == ["lo"]
    assert theirs.left == []


def injected_steps(episode: Episode) -> list[int]:
    return [step.index for step in read_run(episode.path).steps if any(o.injected for o in step.observations)]


@pytest.mark.parametrize("agent", AGENTS)
@pytest.mark.parametrize("policy", list(EXPECTED))
def test_flaky_sandbox_meets_the_agents_own_commands_at_the_steps_it_meets_impasse_own(episodes, agent, policy):
    """The same seeded choice, carried out in the container: each chosen step ran with the process
    table of the agent's commands held full, the kernel refused their forks (counted on the host),
    and the card's pids limit held for the truth (the blocker still in place at the end)."""
    ours, theirs = episodes.get("impasse", "flaky_sandbox", policy), episodes.get(agent, "flaky_sandbox", policy)
    run = read_run(theirs.path)
    held = [entry for entry in run.result.injections if entry["held"]]
    assert [entry["step"] for entry in held] == injected_steps(theirs) != []
    assert all(entry["mode"] == "process_table_full" and entry["forks_refused"] > 0 for entry in held)
    assert run.result.blocker_active_at_end is True
    # Impasse's loop meets the same choices, up to an edit the agent makes in its own process (Claude
    # Code's, opencode's) that meets none: there it succeeds where impasse's was refused, and the runs part.
    parted = min((entry["step"] for entry in run.result.injections if not entry["held"]), default=BUDGET)
    chosen = [entry["step"] for entry in run.result.injections]
    assert [s for s in chosen if s <= parted] == [s for s in injected_steps(ours) if s <= parted]
    for entry in run.result.injections:
        if not entry["held"]:
            assert [c.name for c in run.steps[entry["step"] - 1].tool_calls] == [Tool.EDIT_FILE]


def assert_claude_codes_edit_meets_the_full_disk(ours: Episode, theirs: Episode) -> None:
    """The same outcome; the policy's first edit (step 3) failed under Claude Code (or Qwen Code) and not under
    impasse's loop. The relay records Claude Code's failed result as failed with its status unknown
    (1, as the Claude Code importer reads `is_error`), so the agent's own edit meeting the full disk
    is the onset: step 3, where impasse's loop first meets it at a later command."""
    assert theirs.outcome == ours.outcome
    edit_ours, edit_theirs = (read_run(e.path).steps[2] for e in (ours, theirs))
    assert edit_ours.tool_calls[0].name == edit_theirs.tool_calls[0].name == Tool.EDIT_FILE
    assert edit_ours.observations[0].exit_code == 0 and edit_ours.observations[0].output.startswith("edited ")
    if theirs.path.parent.name == "claude-code":
        assert (edit_theirs.observations[0].exit_code, edit_theirs.observations[0].output) == (1, ENOSPC)
    else:  # Qwen Code writes a temporary file first, and says so: `atomicWriteFile("…"): ENOSPC: …`
        assert "ENOSPC: no space left on device, write" in edit_theirs.observations[0].output
    assert theirs.t_star == 3 and ours.t_star is not None and ours.t_star > 3


def assert_opencodes_edit_names_no_cause(ours: Episode, theirs: Episode) -> None:
    """The same outcome and steps; the policy's first edit (step 3) failed under both, impasse's
    naming the read-only file system (its onset), opencode's naming nothing: no onset there."""
    assert (theirs.outcome, theirs.steps) == (ours.outcome, ours.steps)
    edit_ours, edit_theirs = (read_run(e.path).steps[2] for e in (ours, theirs))
    assert "Read-only file system" in edit_ours.observations[0].output and ours.t_star == 3
    assert edit_theirs.observations[0].output.startswith("Unknown: FileSystem.writeFile (/workspace/")
    assert theirs.t_star is None


@pytest.mark.parametrize("agent", AGENTS)
@pytest.mark.parametrize("card,verdict", [("none", "task_complete"), ("chown_root", "escalate_to_human"),
                                          ("removed_dependency", "escalate_to_human")])
def test_the_oracle_ends_through_impasse_mcp_server(episodes, agent, card, verdict):
    seen = episodes.get(agent, card, "oracle")
    assert [call["tool"] for call in seen.mcp] == [verdict]
    offered = json.loads((seen.path / "meta.json").read_text())["offered_tools"]
    assert any(name.endswith("escalate_to_human") for name in offered), offered  # the tools the model was offered
    if verdict == "escalate_to_human":
        assert seen.mcp[0]["arguments"]["reason"] == read_run(seen.path).result.escalation


@pytest.mark.parametrize("agent", AGENTS)
def test_persistent_ends_at_the_budget_with_exactly_that_many_steps(episodes, agent):
    seen = episodes.get(agent, "chown_root", "persistent")
    assert seen.outcome == "budget_exhausted"
    assert len((seen.path / "steps.jsonl").read_text().splitlines()) == BUDGET
    assert seen.mcp == []
    stops = [json.loads(line) for line in (seen.path / "relay.jsonl").read_text().splitlines()]
    assert [r["kind"] for r in stops].count("step") == BUDGET and stops[-1]["kind"] == "stop"


# The agent's own logs, each as the importer its spec names reads it
TRANSCRIPTS = {name: tuple((t.importer, t.path) for t in load_specs()[name].transcripts) for name in AGENTS}


def relative(path: str) -> str:
    return posixpath.relpath(path, WORKDIR) if path.startswith("/") else posixpath.normpath(path)


HIDDEN_READ = {"claude-code": "Read", "qwen-code": "read_file"}  # the agents that refuse an edit of a file not read


def calls_of(steps, agent: str) -> list[list[tuple]]:
    """Each step's calls as (tool, command or path or message). Two of the relay's translations
    are undone (docs/agents.md, "Scripted policies in the agent's tools"): the read Claude Code and
    Qwen Code must make before an edit, hidden from the policy; and an edit Codex carries out through
    exec_command as impasse's own edit script, which is the edit it was."""
    out = []
    for step in steps:
        calls = []
        for action in step.actions:
            if action.tool == "other" and json.loads(action.command)["name"] == HIDDEN_READ.get(agent):
                continue
            if action.tool == Tool.BASH and action.command.startswith(f"python3 {EDIT_SCRIPT} "):
                edit = json.loads(base64.b64decode(action.command.split()[-1]))
                calls.append((Tool.EDIT_FILE, relative(edit["path"])))
            elif action.tool == Tool.BASH:
                calls.append((Tool.BASH, action.command))
            elif action.tool == Tool.EDIT_FILE:
                calls.append((Tool.EDIT_FILE, relative(action.path)))
            else:
                calls.append((action.tool, action.message))
        out.append(calls)
    return out


@pytest.mark.parametrize("agent", AGENTS)
@pytest.mark.parametrize("card", ["chown_root", "removed_dependency"])
def test_the_agents_own_transcript_gives_the_relays_steps_and_t_star(episodes, agent, card):
    seen = episodes.get(agent, card, "oracle")
    relay_steps = to_trajectory(read_run(seen.path)).steps
    for fmt, pattern in TRANSCRIPTS[agent]:
        (transcript,) = (seen.path / "agent").glob(pattern)
        theirs = load_foreign(transcript, fmt)
        # The request after the verdict is answered with the relay's stop, a reply the agent logs
        # as a turn of its own and the relay counts as no step (cecli asks its model three times more
        # to go on after a reply with no tool call, and logs each stop).
        steps = list(theirs.steps)
        assert (steps[-1].actions, steps[-1].text) == ([], STOP)
        while steps and (steps[-1].actions, steps[-1].text) == ([], STOP):
            steps.pop()
        assert calls_of(steps, agent) == calls_of(relay_steps, agent), transcript.name
        assert theirs.ending == "escalate_to_human"
        (annotation,) = annotate_paths([transcript], fmt, card).annotations
        assert annotation.row.t_star == seen.t_star, transcript.name


@pytest.mark.parametrize("agent", AGENTS)
@pytest.mark.parametrize("card", ["chown_root", "removed_dependency"])
def test_onset_counterfactual_works_on_an_external_agents_run_unchanged(episodes, agent, card):
    seen = episodes.get(agent, card, "oracle")
    done = subprocess.run([sys.executable, "-m", "impasse", "onset", str(seen.path), "--counterfactual", "--json"],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    onset = json.loads(done.stdout)
    assert onset["annotator_t_star"] == onset["counterfactual_t_star"] == seen.t_star
    assert onset["agree"] is True
    assert (seen.path / "counterfactual.json").exists()
