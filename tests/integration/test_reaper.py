"""The reaper removes what dead impasse processes left, and nothing else: a builder's intermediate
container inherits `impasse=1` from the base image's labels and must survive a concurrent gc."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import docker.errors
import pytest

from impasse.infra.images import ensure_base
from impasse.infra.reaper import RUN_LABEL, reap_runs, reap_stale, run_label
from impasse.infra.sandbox import remove_container

DEAD_PID = "999999999"


@pytest.fixture
def base(api):
    return ensure_base(api, log=lambda m: None)


def exists(api, container) -> bool:
    try:
        api.containers.get(container.id)
    except docker.errors.NotFound:
        return False
    return True


def test_stale_sandboxes_go_and_build_containers_stay(api, base):
    dead = api.containers.run(base, ["sleep", "60"], detach=True, labels={"impasse": "1", "impasse.pid": DEAD_PID})
    building = api.containers.run(base, ["sleep", "60"], detach=True, labels={"impasse": "1"})
    try:
        reap_stale(api)
        assert not exists(api, dead)
        assert exists(api, building)
    finally:
        remove_container(building)
        if exists(api, dead):
            remove_container(dead)


def test_the_containers_of_runs_that_are_over_go_even_with_a_live_pid(api, base, tmp_path):
    """By the run's folder: the same run id in another out folder (another matrix, or a suite beside
    this one, on the same engine) is another run, and stays."""
    live = {"impasse": "1", "impasse.pid": str(os.getpid())}

    def start(run: Path):
        labels = {**live, "impasse.run_id": run.name, RUN_LABEL: run_label(run)}
        return api.containers.run(base, ["sleep", "60"], detach=True, labels=labels)
    over, other, same_id_elsewhere = (start(tmp_path / "a" / "run-1"), start(tmp_path / "a" / "run-2"),
                                      start(tmp_path / "b" / "run-1"))
    try:
        assert reap_runs(api, {tmp_path / "a" / "run-1"}) == 1
        assert not exists(api, over) and exists(api, other) and exists(api, same_id_elsewhere)
    finally:
        for container in (over, other, same_id_elsewhere):
            if exists(api, container):
                remove_container(container)


def test_a_container_removed_twice_at_once_is_gone_when_either_removal_returns(api, base):
    """The engine answers the second of two concurrent removals 409 while the first is still under
    way: that removal too returns only once the container is gone (a run's containers are gone when
    its episode returns, whoever else, a gc beside it, is removing them)."""
    containers = [api.containers.run(base, ["sleep", "60"], detach=True, labels={"impasse": "1"})
                  for _ in range(4)]
    still_there: list[str] = []

    def remove(container) -> None:
        remove_container(container)
        if exists(api, container):
            still_there.append(container.short_id)

    try:
        threads = [threading.Thread(target=remove, args=(c,)) for c in containers for _ in range(3)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert still_there == []
    finally:
        for container in containers:
            if exists(api, container):
                container.remove(force=True)
