"""What an external agent can be run under, refused by name before anything starts. impasse's own
loop takes every gate, duty and card; an external agent ends only by its verdict tools (or the
budget), so it takes only the tool gate and no duty. flaky_sandbox: mini-swe-agent's commands are
impasse's own calls (it runs on the host) and meet its injector there; Codex meets its faults in
the container (impasse/infra/step_faults.py); Claude Code does not take it, because its runtime
aborts (SIGABRT) now and then when the held process table refuses it a thread of its own
(measured: 1 run in 7 of scripted:persistent), which measures the plumbing, not the agent.
oom_kill does not apply to an agent in the container: its own process counts against the card's
128 MiB, and the kernel kills the agent rather than the tests (measured: Claude Code at its first
step, Codex at the test run), which measures the harness's plumbing, not the agent."""

from __future__ import annotations

from impasse.agents.pins import AgentSpec, AgentSpecError, Placement
from impasse.vocabulary import Gate

RUNS_IN_CONTAINER = ("claude-code", "codex")
RUNS_ON_HOST = ("mini-swe-agent",)  # its commands go in through impasse's executor
MEMORY_CARDS = ("oom_kill",)  # a memory limit sized for the task's process, with no room for an agent's
HELD_TABLE_CARDS = ("flaky_sandbox",)  # faults that hold the container's process table full over a step
NEEDS_THREADS = ("claude-code",)  # aborts when a thread of its own cannot be started


def check_agent(agent: AgentSpec, gate: str, duty: str | None, card_id: str = "none") -> None:
    if agent.agent.placement is Placement.BUILTIN:
        return
    if agent.name not in RUNS_IN_CONTAINER + RUNS_ON_HOST:
        raise AgentSpecError(f"agent {agent.label} cannot be run by `impasse run` yet; runnable: impasse, "
                             f"{', '.join(RUNS_IN_CONTAINER + RUNS_ON_HOST)}")
    if gate != Gate.TOOL:
        raise AgentSpecError(f"agent {agent.label} ends by its verdict tools: only --gate tool applies, not {gate}")
    if duty is not None:
        raise AgentSpecError(f"agent {agent.label}: the stage-reporting duty is for impasse's own loop")
    if card_id in MEMORY_CARDS and agent.name in RUNS_IN_CONTAINER:
        raise AgentSpecError(f"agent {agent.label} under {card_id}: the agent runs inside the container, so its "
                             "own memory counts against the card's limit and the kernel kills the agent, not the tests")
    if card_id in HELD_TABLE_CARDS and agent.name in NEEDS_THREADS:
        raise AgentSpecError(f"agent {agent.label} under {card_id}: its faults hold the container's process table "
                             "full, and the agent's runtime aborts when it cannot start a thread of its own")
