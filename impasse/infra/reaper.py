"""Cleanup of what impasse started: containers and networks of processes that are gone, of runs
that are over, or all of them (`impasse gc`)."""

from __future__ import annotations

import os
from contextlib import suppress
from pathlib import Path

import docker
import docker.errors
from docker.models.containers import Container

from impasse.hashing import hash_text
from impasse.infra.sandbox import remove_container

# The label that says which run folder a container belongs to. A run's id is its folder's name, the
# same for the same spec in any out folder (that is what lets a matrix resume); two matrices, or two
# test suites, on one engine may run the same spec at once, so what finds or removes a run's
# containers goes by the folder itself.
RUN_LABEL = "impasse.run"


def run_label(path: Path) -> str:
    return hash_text(str(Path(path).resolve()))[:16]


def pid_alive(pid: str) -> bool:
    try:
        os.kill(int(pid), 0)
    except (ValueError, ProcessLookupError):
        return False
    except PermissionError:
        return True
    return True


def started_by_impasse(api: docker.DockerClient, label: str = "impasse=1") -> list[Container]:
    return api.containers.list(all=True, sparse=True, filters={"label": [label, "impasse.pid"]})


def reap_stale(api: docker.DockerClient) -> int:
    """Remove containers and networks left by impasse processes that are gone (killed, crashed)."""
    # Only what an impasse process started carries its pid: a live build's intermediate container also
    # has `impasse=1` (from the base image) and must be spared. Sparse: no inspect, so no 404 for one gone.
    stale = [c for c in started_by_impasse(api) if not pid_alive(c.attrs["Labels"]["impasse.pid"])]
    for container in stale:
        remove_container(container)
    for network in api.networks.list(filters={"label": "impasse=1"}):
        if not pid_alive(network.attrs.get("Labels", {}).get("impasse.pid", "")):
            with suppress(docker.errors.APIError):
                network.remove()
    return len(stale)


def reap_runs(api: docker.DockerClient, runs: set[Path]) -> int:
    """Remove the containers of runs that are over (their folders), whatever became of the process
    that started them: a worker on a removed node may outlive its node for a while, so its pid is no
    test. The same spec run into another out folder (another matrix on this engine) is not touched."""
    keys = {run_label(path) for path in runs}
    leftovers = [c for c in started_by_impasse(api) if c.attrs["Labels"].get(RUN_LABEL) in keys]
    for container in leftovers:
        remove_container(container)
    return len(leftovers)


def reap(api: docker.DockerClient, label: str = "impasse=1") -> tuple[int, int]:
    """Remove every impasse-labelled container and network. Returns (containers, networks)."""
    containers = started_by_impasse(api, label)
    for container in containers:
        remove_container(container)
    networks = api.networks.list(filters={"label": label})
    for network in networks:
        with suppress(docker.errors.APIError):
            network.remove()
    return len(containers), len(networks)
