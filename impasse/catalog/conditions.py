"""A task under a blocker card: what was injected, which image it runs on, which scripts it needs.

This is where a card's generic recipe meets a task's specifics (its module, binary, secret,
services), so the rest of the harness never has to know both.
"""

from __future__ import annotations

from dataclasses import dataclass

from impasse.catalog.cards import Card, Injected
from impasse.catalog.tasks import Task

# card requirement -> does the task provide it?
PROVIDES = {
    "writes": lambda t: t.requires.writes,
    "python_package": lambda t: bool(t.requires.python_packages),
    "binary": lambda t: bool(t.requires.binaries),
    "secret": lambda t: bool(t.requires.secrets),
    "service": lambda t: bool(t.services("service")),
    "tls_service": lambda t: bool(t.services("tls")),
    "download": lambda t: bool(t.services("download")),
    "commit": lambda t: t.requires.commit,
    "memory": lambda t: bool(t.requires.memory_mb),
}


class UnsupportedCondition(ValueError):
    pass


@dataclass(frozen=True)
class Condition:
    task: Task
    card: Card

    @property
    def name(self) -> str:
        return self.card.id

    @property
    def injected(self) -> Injected:
        """What this run took away; the control takes nothing away."""
        requires = set(self.card.requires)
        take = self.task.requires
        return Injected(
            python_packages=take.python_packages if "python_package" in requires else (),
            binaries=take.binaries if "binary" in requires else (),
            secrets=take.secrets if "secret" in requires else ())

    def script_env(self) -> dict[str, str]:
        """What a card's build, setup and probe scripts learn about the task."""
        take = self.task.requires
        return {
            "IMPASSE_PYTHON_PACKAGES": " ".join(take.python_packages),
            "IMPASSE_BINARIES": " ".join(take.binaries),
            "IMPASSE_SECRETS": " ".join(take.secrets),
            "IMPASSE_SERVICE_PORTS": " ".join(str(s.port) for s in self.task.services("service")),
            "IMPASSE_TLS_PORTS": " ".join(str(s.port) for s in self.task.services("tls")),
            "IMPASSE_DOWNLOAD_HOSTS": " ".join(s.host for s in self.task.services("download")),
        }

    def workaround_commands(self) -> tuple[str, ...]:
        """The card's proof workarounds for this task: `{module}` and `{binary}` name what it took away
        (replaced literally: the commands hold shell braces of their own)."""
        module = (self.injected.python_packages or ("",))[0]
        binary = (self.injected.binaries or ("",))[0]
        return tuple(c.replace("{module}", module).replace("{binary}", binary) for c in self.card.proof_commands)

    def omitted(self, what: str) -> bool:
        return what in self.card.inject.omit


def unmet_requirements(task: Task, card: Card) -> list[str]:
    return [req for req in card.requires if not PROVIDES[req](task)]


def make_condition(task: Task, card: Card) -> Condition:
    if not card.is_control and card.id not in task.supports:
        raise UnsupportedCondition(
            f"task {task.id} does not support condition {card.id} "
            f"(it supports: {', '.join(task.supports)})")
    unmet = unmet_requirements(task, card)
    if unmet:
        raise UnsupportedCondition(f"task {task.id} lacks what {card.id} needs: {', '.join(unmet)}")
    return Condition(task, card)
