"""Processes the agent left behind that would starve the harness's own checks. A process table held
full (a fork bomb left running) refuses every exec the truth needs — the capture of the work tree,
the probe, the facts — and would turn the run into a harness error the agent chose. So before the
truth is read, the pids cgroup's count is read on the host; at the limit, the limit is raised for a
moment, every process of the agent's is killed, and the limit goes back. Honest runs stay far below
it (docs/integrity.md)."""

from __future__ import annotations

import time
from pathlib import Path

from impasse.infra.sandbox import AGENT_USER, Sandbox
from impasse.infra.sensors import PIDS_FILES, cgroup_file
from impasse.infra.step_faults import pids_limit, set_pids_limit

SPARE = 16  # a table this close to its limit is held full: the harness's execs need a few slots
HEADROOM = 64  # what the limit is raised by while the agent's processes are killed
# More processes than an agent's own tooling leaves (its runtime, a server or two): the table is counted
# again a moment later, and one still filling is being filled. On a busy machine a fork loop may
# not have reached the limit yet when the episode ends.
CROWDED = 64
FILLING = 8  # processes more, a second later, with the episode over
RECOUNT_SECONDS = 1.0


def processes(box: Sandbox) -> int | None:
    """The container's process count (pids.current, beside the pids cgroup's events)."""
    events = cgroup_file(box.id, PIDS_FILES)
    if events is None:
        return None
    try:
        return int(Path(events).with_name("pids.current").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return None


def held_full(box: Sandbox, limit: int, count: int) -> bool:
    """At the limit, or crowded and still filling a second later."""
    if count >= limit - SPARE:
        return True
    if count < CROWDED:
        return False
    time.sleep(RECOUNT_SECONDS)
    again = processes(box)
    return again is not None and again >= count + FILLING


def clear_process_table(box: Sandbox) -> str | None:
    """What was found and done, when the agent left the process table full; None otherwise."""
    limit, count = pids_limit(box), processes(box)
    if not limit or count is None or not held_full(box, limit, count):
        return None
    set_pids_limit(box, limit + HEADROOM)
    try:
        for _ in range(2):  # a fork loop may get one more child past the first sweep
            box.exec("kill -9 -1", user=AGENT_USER, timeout=30)
    finally:
        set_pids_limit(box, limit)
    return (f"the agent left {count} processes running against the container's limit of {limit}; they were "
            "killed before the truth was read")
