"""The one seam between a matrix and where its runs happen. The matrix hands over `Planned` runs
and gets each back `Finished`; `RunExecutor` is what every backend implements (the local thread
pool and Ray in executors.py and ray_executor.py, or any other), and `windowed` is what their `map`s
share. The run ids, skip-finished and redo-cut-short semantics stay the matrix's."""

from __future__ import annotations

from collections.abc import Callable, Collection, Hashable, Iterator
from dataclasses import dataclass
from itertools import islice
from typing import Protocol, TypeVar

from impasse.catalog.conditions import Condition
from impasse.episode.rundir import RunDir, read_json_file
from impasse.infra.layers import ConditionImage
from impasse.runs.runner import RunSpec
from impasse.vocabulary import Outcome

QUEUED_PER_WORKER = 2  # runs handed to the pool ahead of time: enough to keep workers busy, no more
Handle = TypeVar("Handle", bound=Hashable)  # what a backend hands back for a run it was given


@dataclass
class Planned:
    spec: RunSpec
    condition: Condition
    run_id: str
    staged: ConditionImage | None = None  # set once its image is built

    @property
    def result(self) -> dict | None:
        """Its result.json as written, or None while it has none (or none that can be read)."""
        run = RunDir(self.spec.out / self.run_id)
        try:
            return read_json_file(run.result) if run.finished else None
        except (OSError, ValueError):
            return None

    @property
    def finished(self) -> bool:
        """A run that ended as a transport error measured nothing about the agent: it is redone,
        so a matrix started again once the endpoint is fixed runs exactly what is still missing."""
        return finished_result(self.result)


def finished_result(result: dict | None) -> bool:
    return result is not None and result.get("outcome") != Outcome.TRANSPORT_ERROR


@dataclass(frozen=True)
class Finished:
    """A run the executor is done with: its outcome, or why it failed (then the matrix redoes it
    next time, as it does a run cut short), or why it was held and never started."""

    item: Planned
    outcome: str | None = None
    error: str | None = None
    held: bool = False


# Called as a run is about to begin; False: hold it (it is not started and comes back held).
Admit = Callable[[Planned], bool]
# Called as soon as a run has ended, with its outcome (None: it failed in the harness), before the
# run that takes its place begins: so a circuit breaker sees every outcome before the next start.
Ended = Callable[[Planned, str | None], None]


def no_op_ended(item: Planned, outcome: str | None) -> None:
    return None


class RunExecutor(Protocol):
    def map(self, todo: list[Planned], started: Admit, ended: Ended = no_op_ended) -> Iterator[Finished]:
        """Carry out every run of `todo` (its images already built where the runs will happen, or
        built there once), call `started` as each begins and `ended` as each ends, yield each as it
        ends, in any order. A run `started` answers False for is not started and is yielded `held`."""
        ...


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
