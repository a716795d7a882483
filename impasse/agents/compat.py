"""What an external agent can be run under, refused by name before anything starts. impasse's own
loop takes every gate, duty and card; an external agent ends only by its verdict tools (or the
budget), and the agents in the container run their commands through their own shell, where
impasse's tool layer cannot inject flaky_sandbox's faults. mini-swe-agent's commands are impasse's
own calls (it runs on the host), so it takes flaky_sandbox."""

from __future__ import annotations

from impasse.agents.pins import AgentSpec, AgentSpecError, Placement
from impasse.vocabulary import Gate

RUNS_IN_CONTAINER = ("claude-code", "codex")
RUNS_ON_HOST = ("mini-swe-agent",)  # its commands go in through impasse's executor
TOOL_LAYER_CARDS = ("flaky_sandbox",)  # faults injected into impasse's own tool calls


def check_agent(agent: AgentSpec, gate: str, duty: str | None, card_id: str) -> None:
    if agent.agent.placement is Placement.BUILTIN:
        return
    if agent.name not in RUNS_IN_CONTAINER + RUNS_ON_HOST:
        raise AgentSpecError(f"agent {agent.label} cannot be run by `impasse run` yet; runnable: impasse, "
                             f"{', '.join(RUNS_IN_CONTAINER + RUNS_ON_HOST)}")
    if gate != Gate.TOOL:
        raise AgentSpecError(f"agent {agent.label} ends by its verdict tools: only --gate tool applies, not {gate}")
    if duty is not None:
        raise AgentSpecError(f"agent {agent.label}: the stage-reporting duty is for impasse's own loop")
    if card_id in TOOL_LAYER_CARDS and agent.name not in RUNS_ON_HOST:
        raise AgentSpecError(f"agent {agent.label} under {card_id}: its faults are injected into impasse's own "
                             f"tool calls, which an external agent does not make")
