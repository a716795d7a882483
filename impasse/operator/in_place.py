"""The operator's lift for an agent that runs inside its container, which cannot be moved to a fresh
one: the named card's `operator.in_place` carried out where the blocker is (infra/in_place.py) — a
root script in the container's mount namespace, the files copied back from the control image, the
harness's own actions from outside. A card whose blocker cannot be undone while the agent runs says
why (`refused`), and the reply says it cannot be fixed now."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import docker

from impasse.catalog.cards import Card
from impasse.catalog.conditions import Condition
from impasse.infra.cgroups import UNLIMITED, Commands
from impasse.infra.environment import docker_run_options, exports
from impasse.infra.in_place import LiftError, as_real_root, restore
from impasse.infra.layers import ConditionImage
from impasse.infra.sandbox import HARDENING, Sandbox, SandboxUnavailable
from impasse.infra.services import EnvironmentSetupError, restart_local_services
from impasse.infra.step_faults import set_pids_limit


@dataclass
class Site:
    """Where the blocker is and what undoing it may use: the run's container and condition, the
    task under the control condition (its image and limits), and how the agent's step faults stop."""

    api: docker.DockerClient
    box: Sandbox
    condition: Condition
    control: ConditionImage
    labels: dict[str, str]
    faults_off: Callable[[], None] | None = None

    def control_option(self, name: str):
        return docker_run_options(self.control.condition)[0].get(name, HARDENING[name])


def faults_off(site: Site) -> None:
    """flaky_sandbox's faults stopped for the steps to come, the process table's limit as the control's."""
    if site.faults_off is not None:
        site.faults_off()
    set_pids_limit(site.box, site.control_option("pids_limit"))


def memory(site: Site) -> None:
    """The control's memory for the container, and none of its own for the agent's commands' cgroup
    (where the card's limit is for an agent inside the container: infra/cgroups.py)."""
    site.box.container.update(mem_limit=site.control_option("mem_limit"),
                              memswap_limit=site.control_option("memswap_limit"))
    commands = Commands.find(site.box.id)
    if commands is not None:
        commands.set_memory(UNLIMITED)


def services(site: Site) -> None:
    restart_local_services(site.box, site.condition, site.control.condition)


HOST_ACTIONS: dict[str, Callable[[Site], None]] = {"faults_off": faults_off, "memory": memory,
                                                     "services": services}
FAILURES = (LiftError, EnvironmentSetupError, SandboxUnavailable, docker.errors.DockerException)


def lift_in_place(site: Site, card: Card) -> None:
    """`card`'s blocker undone in the live container (raises one of FAILURES where it could not be)."""
    block = card.operator.in_place
    named = exports(Condition(site.condition.task, card))  # what the card's scripts know of the task
    if block.restore:
        restore(site.api, site.box, site.control.image, f"{named}\n{block.restore}", site.labels)
    if block.root:
        as_real_root(site.box, f"{named}\n{block.root}")
    for action in block.host:
        HOST_ACTIONS[action](site)
