"""Where a matrix's runs are carried out, chosen by name: the local thread pool below (the
default) or Ray (`ray_executor.py`). Both implement the seam's `RunExecutor` (runs/seam.py)."""

from __future__ import annotations

from collections.abc import Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from contextlib import closing
from dataclasses import replace

import docker

from impasse.infra.images import Log
from impasse.infra.layers import ConditionImage, stage
from impasse.models.sdk import size_pools
from impasse.runs.ray_executor import RayExecutor
from impasse.runs.runner import execute
from impasse.runs.seam import Admit, Ended, Finished, Planned, RunExecutor, no_op_ended, windowed

HELD = object()  # what `one` returns for a run it did not start


class LocalExecutor:
    """`workers` runs at a time in threads of this process, on one Docker engine and its client.
    Runs are handed to the pool a few at a time, not all at once: a matrix of 60,000 runs holds a
    few dozen pending futures, not 60,000."""

    def __init__(self, api: docker.DockerClient, workers: int, log: Log = lambda m: None) -> None:
        self.api = api
        self.workers = max(1, workers)
        self.log = log
        size_pools(self.workers)  # the runs call their models from this process: a warm connection each

    def one(self, item: Planned, started: Admit, ended: Ended):
        # No pacing here: the runs' starts and gradings queue for the machine's cores themselves
        # (infra/busy_gate.py), however many workers there are.
        if not started(item):
            return HELD
        outcome = None
        try:
            outcome = execute(self.api, replace(item.spec), staged=item.staged).outcome
            return outcome
        finally:  # in this thread, before it takes the next queued run
            ended(item, outcome)

    def map(self, todo: list[Planned], started: Admit, ended: Ended = no_op_ended) -> Iterator[Finished]:
        prepare_images(self.api, todo, self.log)
        with ThreadPoolExecutor(max_workers=self.workers) as pool, closing(windowed(
                todo, self.workers, lambda item: pool.submit(self.one, item, started, ended),
                lambda futures: wait(futures, return_when=FIRST_COMPLETED)[0], Future.cancel)) as ends:
            for item, future in ends:
                yield finished(item, future)


EXECUTORS = ("local", "ray")


def make_executor(name: str, api: docker.DockerClient, workers: int, log: Log = lambda m: None) -> RunExecutor:
    """`local`: threads here; `ray`: a Ray cluster (RAY_ADDRESS), Ray itself imported only then."""
    if name == "ray":
        return RayExecutor(workers, api=api, log=log)
    if name != "local":
        raise ValueError(f"unknown executor {name!r}; known: {', '.join(EXECUTORS)}")
    return LocalExecutor(api, workers, log)


def prepare_images(api: docker.DockerClient, planned: list[Planned], log: Log) -> None:
    """Every condition's image built once, before the workers start (so they never race to build
    the same layer), and handed to its runs."""
    staged: dict[tuple[str, str], ConditionImage] = {}
    for item in planned:
        key = (item.condition.task.id, item.condition.name)
        if key not in staged:
            staged[key] = stage(api, item.condition, log)
        item.staged = staged[key]


def finished(item: Planned, future: Future) -> Finished:
    try:
        outcome = future.result()
    except Exception as err:  # one broken run must not stop the matrix; it is redone next time
        return Finished(item, error=f"{type(err).__name__}: {err}")
    return Finished(item, held=True) if outcome is HELD else Finished(item, outcome=outcome)
