"""Back-pressure on the CPU-heavy phases of a run: bringing its containers up and grading its work.

A model-bound episode spends minutes waiting on its model and a few seconds of CPU in bursts: the
start (create, start, set up) and the truth (a fresh container, the test run, removal). Runs that
begin together reach those bursts together. Sixteen gradings sharing two cores all finish after
~10 s; taken two at a time they finish after 0.6, 1.3, … 10 s, and every worker whose grading is
done goes back to waiting on its model, which costs the machine nothing. Same work, half the mean
wait. So at most `slots` heavy phases run at once in this process (one per core), and the rest
queue by rank. A run's start goes first: it is what sends a worker back to its model, and a worker
whose grading is done then starts its next run at once instead of behind every other grading. A
grading goes next. Last comes a grader's container started ahead, while its run's agent works
(grading.StandbyGrader): nobody waits on it yet. Within a rank, no order is promised.

A slot is a lease, not a lock: a phase that holds one longer than `lease` seconds (a test suite
that sleeps, an engine that hangs) gives it back and runs on unpaced, so a stuck run can slow the
others by `lease` at most, never stop them."""

from __future__ import annotations

import contextlib
import enum
import os
import threading
from collections import Counter
from collections.abc import Iterator

LEASE = 10.0  # a normal heavy phase takes ~1 s of CPU; ten times that is no longer a burst


class Rank(enum.IntEnum):
    """Who goes first when a slot comes free: the lower rank."""

    START = 0
    GRADING = 1
    STANDBY = 2


class Slots:
    """A counting semaphore whose waiters are served by rank, the lowest first."""

    def __init__(self, count: int) -> None:
        self.free = count
        self.waiting: Counter[Rank] = Counter()
        self.changed = threading.Condition()

    def acquire(self, rank: Rank) -> None:
        with self.changed:
            self.waiting[rank] += 1
            while self.free == 0 or any(self.waiting[r] for r in Rank if r < rank):
                self.changed.wait()
            self.waiting[rank] -= 1
            self.free -= 1

    def release(self) -> None:
        with self.changed:
            self.free += 1
            self.changed.notify_all()  # the first in rank may be behind others in the queue


class Lease:
    def __init__(self, slots: Slots) -> None:
        self.slots = slots
        self.returned = False
        self.lock = threading.Lock()

    def give_back(self) -> None:
        with self.lock:  # once, whichever of the phase's end and the timer comes first
            if not self.returned:
                self.returned = True
                self.slots.release()


class BusyGate:
    def __init__(self, slots: int, lease: float = LEASE) -> None:
        self.slots = Slots(max(1, slots))
        self.lease = lease
        self.holding = threading.local()

    @contextlib.contextmanager
    def held(self, rank: Rank) -> Iterator[None]:
        """One slot for the block, served by `rank`. Nested in the same thread (grading brings a
        container up), the outer slot covers both."""
        if getattr(self.holding, "slot", False):
            yield
            return
        self.slots.acquire(rank)
        lease = Lease(self.slots)
        timer = threading.Timer(self.lease, lease.give_back)
        timer.daemon = True
        timer.start()
        self.holding.slot = True
        try:
            yield
        finally:
            self.holding.slot = False
            timer.cancel()
            lease.give_back()


def default_slots() -> int:
    """IMPASSE_BUSY_SLOTS, else one per core this process may use."""
    configured = os.environ.get("IMPASSE_BUSY_SLOTS", "")
    if configured.isdigit() and int(configured) > 0:
        return int(configured)
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


BUSY = BusyGate(default_slots())
