"""Back-pressure on the CPU-heavy phases of a run: bringing its containers up and grading its work.

A model-bound episode spends minutes waiting on its model and a few seconds of CPU in bursts: the
start (create, start, set up) and the truth (a fresh container, the test run, removal). Runs that
begin together reach those bursts together. Sixteen gradings sharing two cores all finish after
~10 s; taken two at a time they finish after 0.6, 1.3, … 10 s, and every worker whose grading is
done goes back to waiting on its model, which costs the machine nothing. Same work, half the mean
wait. So at most `slots` heavy phases run at once in this process (one per core), and the rest
queue. A run's start goes ahead of the gradings waiting: it is what sends a worker back to its
model, and a worker whose grading is done then starts its next run at once instead of behind every
other grading; first come, first served otherwise.

A slot is a lease, not a lock: a phase that holds one longer than `lease` seconds (a test suite
that sleeps, an engine that hangs) gives it back and runs on unpaced, so a stuck run can slow the
others by `lease` at most, never stop them."""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Iterator

LEASE = 10.0  # a normal heavy phase takes ~1 s of CPU; ten times that is no longer a burst


class Slots:
    """A counting semaphore with a fast lane: a waiter `ahead` is served before any other."""

    def __init__(self, count: int) -> None:
        self.free = count
        self.waiting = 0
        self.waiting_ahead = 0
        self.changed = threading.Condition()

    def acquire(self, ahead: bool) -> None:
        with self.changed:
            self.waiting += 1
            self.waiting_ahead += ahead
            while self.free == 0 or (not ahead and self.waiting_ahead):
                self.changed.wait()
            self.waiting -= 1
            self.waiting_ahead -= ahead
            self.free -= 1

    def release(self) -> None:
        with self.changed:
            self.free += 1
            self.changed.notify_all()  # a fast-lane waiter may be behind a slow one in the queue


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
    def held(self, ahead: bool = False) -> Iterator[None]:
        """One slot for the block, `ahead` of the queue's other waiters (a run's start). Nested in
        the same thread (grading brings a container up), the outer slot covers both."""
        if getattr(self.holding, "slot", False):
            yield
            return
        self.slots.acquire(ahead)
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
