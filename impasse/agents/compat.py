"""What an external agent can be run under, refused by name before anything starts. impasse's own
loop takes every gate, duty and card; an external agent ends only by its verdict tools (or the
budget), so it takes only the tool gate and no duty. Every card applies to every agent:
mini-swe-agent's commands are impasse's own calls (it runs on the host) and meet flaky_sandbox's
injector there; the agents in the container meet its faults in the container
(impasse/infra/step_faults.py)."""

from __future__ import annotations

from impasse.agents.pins import AgentSpec, AgentSpecError, Placement
from impasse.vocabulary import Gate

RUNS_IN_CONTAINER = ("claude-code", "codex")
RUNS_ON_HOST = ("mini-swe-agent",)  # its commands go in through impasse's executor


def check_agent(agent: AgentSpec, gate: str, duty: str | None) -> None:
    if agent.agent.placement is Placement.BUILTIN:
        return
    if agent.name not in RUNS_IN_CONTAINER + RUNS_ON_HOST:
        raise AgentSpecError(f"agent {agent.label} cannot be run by `impasse run` yet; runnable: impasse, "
                             f"{', '.join(RUNS_IN_CONTAINER + RUNS_ON_HOST)}")
    if gate != Gate.TOOL:
        raise AgentSpecError(f"agent {agent.label} ends by its verdict tools: only --gate tool applies, not {gate}")
    if duty is not None:
        raise AgentSpecError(f"agent {agent.label}: the stage-reporting duty is for impasse's own loop")
