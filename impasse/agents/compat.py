"""What an external agent can be run under, refused by name before anything starts. impasse's own
loop takes every gate, duty and card; an external agent ends only by its verdict tools (or the
budget), so it takes only the tool gate and no duty. The cards an agent does not take, each with the
reason its refusal gives and what was measured, are its spec's (`refuses` in
impasse/agents/specs/NAME.yaml). None refuses one today: under oom_kill and flaky_sandbox an agent
in the container has its commands in a cgroup of their own, which carries the card's limit
(infra/cgroups.py), and mini-swe-agent's commands are impasse's own calls."""

from __future__ import annotations

from impasse.agents.pins import AgentSpec, AgentSpecError, Placement
from impasse.agents.specs import load_specs
from impasse.vocabulary import Gate

RUNS_IN_CONTAINER = tuple(name for name, spec in load_specs().items() if spec.placement is Placement.CONTAINER)
RUNS_ON_HOST = tuple(name for name, spec in load_specs().items() if spec.placement is Placement.HOST)


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
    refusal = load_specs()[agent.name].refusal(card_id)
    if refusal is not None:
        raise AgentSpecError(f"agent {agent.label} under {card_id}: {refusal.reason}")
