"""The busy gate lets `slots` heavy phases run at once, queues the rest with a run's start ahead
of gradings, lets a thread nest, and takes a slot back from a phase that outstays its lease."""

import os
import threading

import pytest

from impasse.infra.busy_gate import BusyGate, default_slots


def run_phases(gate: BusyGate, count: int, phase) -> list[threading.Thread]:
    threads = [threading.Thread(target=phase) for _ in range(count)]
    for thread in threads:
        thread.start()
    return threads


def test_no_more_than_its_slots_run_at_once():
    gate, lock = BusyGate(2), threading.Lock()
    inside, most = [0], [0]
    release = threading.Event()

    def phase():
        with gate.held():
            with lock:
                inside[0] += 1
                most[0] = max(most[0], inside[0])
            release.wait(0.05)
            with lock:
                inside[0] -= 1

    for thread in run_phases(gate, 8, phase):
        thread.join(5)
    assert most[0] == 2 and inside[0] == 0


def test_a_start_goes_ahead_of_the_gradings_already_waiting():
    gate, order = BusyGate(1), []
    holding, leave = threading.Event(), threading.Event()

    def holder():
        with gate.held():
            holding.set()
            leave.wait(5)

    def phase(name, ahead):
        with gate.held(ahead=ahead):
            order.append(name)

    threads = [threading.Thread(target=holder)]
    threads[0].start()
    assert holding.wait(2)
    for name, ahead in (("grading 1", False), ("grading 2", False), ("start", True)):
        threads.append(threading.Thread(target=phase, args=(name, ahead)))
        threads[-1].start()
        while gate.slots.waiting < len(threads) - 1:  # each in the queue before the next comes
            threading.Event().wait(0.01)
    leave.set()
    for thread in threads:
        thread.join(5)
    assert order[0] == "start" and sorted(order[1:]) == ["grading 1", "grading 2"]


def test_a_thread_nests_in_its_own_slot():
    gate = BusyGate(1)
    done = threading.Event()

    def nested():
        with gate.held(), gate.held():  # one slot only: a second acquire would wait forever
            done.set()

    thread = threading.Thread(target=nested, daemon=True)
    thread.start()
    thread.join(2)
    assert done.is_set()
    with gate.held():  # and the slot came back
        pass


def test_a_phase_past_its_lease_gives_its_slot_back():
    gate = BusyGate(1, lease=0.05)
    stuck, leave = threading.Event(), threading.Event()

    def hangs():
        with gate.held():
            stuck.set()
            leave.wait(5)

    hanging = threading.Thread(target=hangs, daemon=True)
    hanging.start()
    assert stuck.wait(2)
    entered, finish = threading.Event(), threading.Event()

    def next_phase():
        with gate.held():
            entered.set()
            finish.wait(5)

    waiting = threading.Thread(target=next_phase, daemon=True)
    waiting.start()
    assert entered.wait(2), "the stuck phase kept its slot past its lease"
    leave.set()
    hanging.join(2)
    assert gate.slots.free == 0  # the late end did not give the slot back a second time
    finish.set()


@pytest.mark.parametrize("value,expected", [("3", 3), ("0", None), ("many", None), ("", None)])
def test_the_slots_come_from_the_environment_or_the_cores(monkeypatch, value, expected):
    monkeypatch.setenv("IMPASSE_BUSY_SLOTS", value)
    assert default_slots() == (expected or len(os.sched_getaffinity(0)))
