"""The busy gate lets `slots` heavy phases run at once, queues the rest by rank (a run's start,
then gradings, then a standby grader's container), lets a thread nest, and takes a slot back from a
phase that outstays its lease."""

import os
import threading
from dataclasses import dataclass, field

import pytest

from impasse.infra.busy_gate import BusyGate, Rank, default_slots


@dataclass
class Phase:
    """A heavy phase in a thread of its own: it enters the gate, says so, and holds its slot until
    told to leave."""

    gate: BusyGate
    rank: Rank = Rank.GRADING
    name: str = ""
    order: list[str] = field(default_factory=list)  # where it writes its name as it enters
    entered: threading.Event = field(default_factory=threading.Event)
    leave: threading.Event = field(default_factory=threading.Event)

    def __post_init__(self) -> None:
        self.thread = threading.Thread(target=self.hold, daemon=True)
        self.thread.start()

    def hold(self) -> None:
        with self.gate.held(self.rank):
            self.order.append(self.name)
            self.entered.set()
            self.leave.wait(5)

    def end(self) -> None:
        self.leave.set()
        self.thread.join(5)


def test_no_more_than_its_slots_run_at_once():
    gate, lock = BusyGate(2), threading.Lock()
    inside, most = [0], [0]

    def phase():
        with gate.held(Rank.GRADING):
            with lock:
                inside[0] += 1
                most[0] = max(most[0], inside[0])
            threading.Event().wait(0.05)
            with lock:
                inside[0] -= 1

    threads = [threading.Thread(target=phase) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(5)
    assert most[0] == 2 and inside[0] == 0


def test_the_queue_is_served_by_rank():
    gate, order = BusyGate(1), []
    holder = Phase(gate)
    assert holder.entered.wait(2)
    waiting = []
    arrivals = (("standby", Rank.STANDBY), ("grading 1", Rank.GRADING), ("grading 2", Rank.GRADING),
                ("start", Rank.START))
    for name, rank in arrivals:
        waiting.append(Phase(gate, rank, name, order))
        while gate.slots.waiting.total() < len(waiting):  # each in the queue before the next comes
            threading.Event().wait(0.01)
    for phase in waiting:
        phase.leave.set()  # each leaves as soon as it is in: the order is the gate's alone
    holder.end()
    for phase in waiting:
        phase.end()
    assert order[0] == "start" and sorted(order[1:3]) == ["grading 1", "grading 2"] and order[3] == "standby"


def test_a_thread_nests_in_its_own_slot():
    gate = BusyGate(1)
    done = threading.Event()

    def nested():
        with gate.held(Rank.GRADING), gate.held(Rank.START):  # one slot only: a second acquire would wait forever
            done.set()

    thread = threading.Thread(target=nested, daemon=True)
    thread.start()
    thread.join(2)
    assert done.is_set()
    with gate.held(Rank.START):  # and the slot came back
        pass


def test_a_phase_past_its_lease_gives_its_slot_back():
    gate = BusyGate(1, lease=0.05)
    stuck = Phase(gate)
    assert stuck.entered.wait(2)
    after = Phase(gate)
    assert after.entered.wait(2), "the stuck phase kept its slot past its lease"
    stuck.end()
    assert gate.slots.free == 0  # the late end did not give the slot back a second time
    after.end()


@pytest.mark.parametrize("value,expected", [("3", 3), ("0", None), ("many", None), ("", None)])
def test_the_slots_come_from_the_environment_or_the_cores(monkeypatch, value, expected):
    monkeypatch.setenv("IMPASSE_BUSY_SLOTS", value)
    assert default_slots() == (expected or len(os.sched_getaffinity(0)))
