"""What an external agent can be run under, refused by name before anything starts. impasse's own
loop takes every gate, duty and card; an external agent ends only by its verdict tools (or the
budget), and its commands run through its own shell, where impasse's tool layer cannot inject
flaky_sandbox's faults."""

from __future__ import annotations

from impasse.agents.pins import AgentSpec, AgentSpecError, Placement
from impasse.vocabulary import Gate

RUNS_IN_CONTAINER = ("claude-code", "codex")
TOOL_LAYER_CARDS = ("flaky_sandbox",)  # faults injected into impasse's own tool calls


def check_agent(agent: AgentSpec, gate: str, duty: str | None, card_id: str) -> None:
    if agent.agent.placement is Placement.BUILTIN:
        return
    if agent.name not in RUNS_IN_CONTAINER:
        raise AgentSpecError(f"agent {agent.label} cannot be run by `impasse run` yet; runnable: impasse, "
                             f"{', '.join(RUNS_IN_CONTAINER)}")
    if gate != Gate.TOOL:
        raise AgentSpecError(f"agent {agent.label} ends by its verdict tools: only --gate tool applies, not {gate}")
    if duty is not None:
        raise AgentSpecError(f"agent {agent.label}: the stage-reporting duty is for impasse's own loop")
    if card_id in TOOL_LAYER_CARDS:
        raise AgentSpecError(f"agent {agent.label} under {card_id}: its faults are injected into impasse's own "
                             f"tool calls, which an external agent does not make")
