"""Where a matrix's runs are carried out. The matrix plans, skips what is finished and keeps the
progress; an executor takes the runs still to do and yields each one as it finishes. This is the
one seam between them: the local thread pool below (the default), Ray (`ray_executor.py`) or any
other backend implements `RunExecutor.map`, and the run ids, skip-finished and redo-cut-short
semantics stay the matrix's."""

from __future__ import annotations

from collections.abc import Callable, Collection, Hashable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from contextlib import closing
from dataclasses import dataclass, replace
from itertools import islice
from typing import TYPE_CHECKING, Protocol, TypeVar

import docker

from impasse.infra.images import Log
from impasse.infra.layers import ConditionImage, stage
from impasse.models.sdk import size_pools
from impasse.runs.runner import execute

if TYPE_CHECKING:
    from impasse.runs.matrix import Planned

QUEUED_PER_WORKER = 2  # runs handed to the pool ahead of time: enough to keep workers busy, no more
Handle = TypeVar("Handle", bound=Hashable)  # what a backend hands back for a run it was given


@dataclass(frozen=True)
class Finished:
    """A run the executor is done with: its outcome, or why it failed (then the matrix redoes it
    next time, as it does a run cut short)."""

    item: Planned
    outcome: str | None = None
    error: str | None = None


class RunExecutor(Protocol):
    def map(self, todo: list[Planned], started: Callable[[Planned], None]) -> Iterator[Finished]:
        """Carry out every run of `todo` (its images already built where the runs will happen, or
        built there once), call `started` as each begins, yield each as it ends, in any order."""
        ...


class LocalExecutor:
    """`workers` runs at a time in threads of this process, on one Docker engine and its client.
    Runs are handed to the pool a few at a time, not all at once: a matrix of 60,000 runs holds a
    few dozen pending futures, not 60,000."""

    def __init__(self, api: docker.DockerClient, workers: int, log: Log = lambda m: None) -> None:
        self.api = api
        self.workers = max(1, workers)
        self.log = log
        size_pools(self.workers)  # the runs call their models from this process: a warm connection each

    def one(self, item: Planned, started: Callable[[Planned], None]) -> str:
        # No pacing here: the runs' starts and gradings queue for the machine's cores themselves
        # (infra/busy_gate.py), however many workers there are.
        started(item)
        return execute(self.api, replace(item.spec), staged=item.staged).outcome

    def map(self, todo: list[Planned], started: Callable[[Planned], None]) -> Iterator[Finished]:
        prepare_images(self.api, todo, self.log)
        with ThreadPoolExecutor(max_workers=self.workers) as pool, closing(windowed(
                todo, self.workers, lambda item: pool.submit(self.one, item, started),
                lambda futures: wait(futures, return_when=FIRST_COMPLETED)[0], Future.cancel)) as ends:
            for item, future in ends:
                yield finished(item, future)


def windowed(todo: list[Planned], slots: int, submit: Callable[[Planned], Handle],
             wait_any: Callable[[list[Handle]], Collection[Handle]], cancel: Callable[[Handle], object],
             ) -> Iterator[tuple[Planned, Handle]]:
    """What every executor's `map` shares: `todo` handed to the backend a few runs per slot ahead,
    never all at once, topped up as runs end, and yielded as (run, handle) as each ends. `submit`
    starts a run and returns its handle; `wait_any` returns the handles that have ended (one at
    least). Interrupted or closed: the runs handed over but not yet collected are cancelled (those
    not begun are dropped; running ones end on their own)."""
    queue = iter(todo)
    pending: dict[Handle, Planned] = {}

    def top_up(count: int) -> None:
        for item in islice(queue, count):
            pending[submit(item)] = item
    top_up(slots * QUEUED_PER_WORKER)
    try:
        while pending:
            done = wait_any(list(pending))
            top_up(len(done))
            for handle in done:
                yield pending.pop(handle), handle
    finally:
        for handle in pending:
            cancel(handle)


EXECUTORS = ("local", "ray")


def make_executor(name: str, api: docker.DockerClient, workers: int, log: Log = lambda m: None) -> RunExecutor:
    """`local`: threads here; `ray`: a Ray cluster (RAY_ADDRESS), imported only when asked for."""
    if name == "ray":
        from impasse.runs.ray_executor import RayExecutor
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
        return Finished(item, outcome=future.result())
    except Exception as err:  # one broken run must not stop the matrix; it is redone next time
        return Finished(item, error=f"{type(err).__name__}: {err}")
