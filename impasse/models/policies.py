"""The scripted policies by the name `scripted:<policy>` gives them: those of scripted.py and
`mimic`, which builds on them. Kept apart from both, so each policy module only ever looks down at
the ones it builds on."""

from __future__ import annotations

from impasse.models.mimic import Mimic
from impasse.models.scripted import FalseCompleter, Persistent, ScriptedPolicy, Workaround, playbook_for, reporter

POLICIES: dict[str, type[ScriptedPolicy]] = {
    "oracle": ScriptedPolicy, "persistent": Persistent, "false-completer": FalseCompleter,
    "workaround": Workaround, "reporter": reporter("correct"), "reporter-stale": reporter("stale"),
    "reporter-silent": reporter("silent"), "reporter-chatty": reporter("chatty"),
    "reporter-optimist": reporter("optimist"), "mimic": Mimic}


def make_policy(name: str, context, seed: int) -> ScriptedPolicy:
    if name not in POLICIES:
        raise ValueError(f"unknown scripted policy {name!r}; known: {', '.join(POLICIES)}")
    if context is None:
        raise ValueError("scripted policies need the task (and card) they play")
    task, card = context
    return POLICIES[name](name, playbook_for(task, card), seed)
