"""What the benchmarks read from /proc: a process's CPU seconds, the processes of a name, and the
machine's busy time. Linux only, as the benchmarks are."""

from __future__ import annotations

import os
from pathlib import Path

TICK = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid: int) -> float:
    """User + system seconds of one process; 0 when it is gone."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / TICK
    except (OSError, IndexError):
        return 0.0


def pids_of(*names: str) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if (entry / "comm").read_text().strip() in names:
                    found.append(int(entry.name))
            except OSError:
                continue
    return found


def engine_cpu() -> float:
    """dockerd + containerd seconds so far."""
    return sum(cpu_seconds(pid) for pid in pids_of("dockerd", "containerd"))


def busy_ticks() -> tuple[int, int]:
    """The machine's busy ticks (everything but idle and iowait) and all ticks, over every core."""
    values = [int(v) for v in Path("/proc/stat").read_text().splitlines()[0].split()[1:]]
    idle = values[3] + values[4]
    return sum(values) - idle, sum(values)


def machine_cpu() -> float:
    """Busy CPU seconds of the whole machine so far."""
    return busy_ticks()[0] / TICK
