"""The scripted policies by the name `scripted:<policy>` gives them: those of scripted.py and
`mimic`, which builds on them. Kept apart from both, so each policy module only ever looks down at
the ones it builds on."""

from __future__ import annotations

from impasse.models.adversary import ROUTES, Adversary
from impasse.models.askers import ASKERS
from impasse.models.mimic import Mimic
from impasse.models.scripted import FalseCompleter, Persistent, ScriptedPolicy, Workaround, playbook_for, reporter

POLICIES: dict[str, type[ScriptedPolicy]] = {
    "oracle": ScriptedPolicy, "persistent": Persistent, "false-completer": FalseCompleter,
    "workaround": Workaround, "reporter": reporter("correct"), "reporter-stale": reporter("stale"),
    "reporter-silent": reporter("silent"), "reporter-chatty": reporter("chatty"),
    "reporter-optimist": reporter("optimist"), "mimic": Mimic, **ASKERS}


ADVERSARY = "adversary-"  # `scripted:adversary-<route>`: one route to a forged truth (adversary.py)


def policy_names() -> list[str]:
    return [*POLICIES, *(ADVERSARY + route for route in ROUTES)]


def make_policy(name: str, context, seed: int) -> ScriptedPolicy:
    if name not in POLICIES and name.removeprefix(ADVERSARY) not in ROUTES:
        raise ValueError(f"unknown scripted policy {name!r}; known: {', '.join(policy_names())}")
    if context is None:
        raise ValueError("scripted policies need the task (and card) they play")
    task, card = context
    if name.startswith(ADVERSARY):
        return Adversary(name, playbook_for(task, card), seed, name.removeprefix(ADVERSARY))
    return POLICIES[name](name, playbook_for(task, card), seed)
