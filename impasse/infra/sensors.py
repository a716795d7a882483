"""Runtime onset sensors: facts the kernel keeps about the agent's container, read on the host after
each tool call and recorded with its observation before the model sees it (truth from runtime
state, not from what a command chose to print).

One sensor today, where text is silent: the memory cgroup's OOM-kill counter. A pipeline member
the kernel kills prints nothing (`pytest | tail` shows a few dots and exits 0), yet the counter
moves. Reading it is one small file read on the host, a few microseconds, invisible to the agent.
When the engine runs elsewhere (a VM, a remote daemon) the file is not on this host: the sensor
says so by being absent, and the annotator falls back to the text.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

CGROUP_ROOT = Path("/sys/fs/cgroup")
# Where a container's memory cgroup lives, by cgroup version and the engine's cgroup driver.
OOM_FILES = (
    "memory/docker/{id}/memory.oom_control",  # v1, cgroupfs driver
    "memory/system.slice/docker-{id}.scope/memory.oom_control",  # v1, systemd driver
    "system.slice/docker-{id}.scope/memory.events",  # v2, systemd driver
    "docker/{id}/memory.events",  # v2, cgroupfs driver
)
OOM_KILLS = "oom_kills"  # the key in an observation's `sensors`
# The child cgroup of an in-container agent's commands (infra/cgroups.py), beside the agent: the
# kernel counts a kill in the cgroup whose limit was met, so its counter is read too.
COMMANDS_CHILD = "commands"
# Where its pids cgroup counts the forks it refused at its limit (`max N`).
PIDS_FILES = (
    "pids/docker/{id}/pids.events",  # v1, cgroupfs driver
    "pids/system.slice/docker-{id}.scope/pids.events",  # v1, systemd driver
    "system.slice/docker-{id}.scope/pids.events",  # v2, systemd driver
    "docker/{id}/pids.events",  # v2, cgroupfs driver
)
# How many processes and threads the container's pids cgroup holds now.
PIDS_NOW_FILES = tuple(template.replace("pids.events", "pids.current") for template in PIDS_FILES)


def cgroup_file(container_id: str, templates: tuple[str, ...], root: Path = CGROUP_ROOT) -> Path | None:
    for template in templates:
        path = root / template.format(id=container_id)
        if path.is_file():
            return path
    return None


def oom_file(container_id: str, root: Path = CGROUP_ROOT) -> Path | None:
    return cgroup_file(container_id, OOM_FILES, root)


def read_counter(path: Path, key: str) -> int | None:
    """The `KEY N` line of a cgroup's flat keyed file; None when it cannot be read."""
    try:
        for line in path.read_text().splitlines():
            name, _, value = line.partition(" ")
            if name == key:
                return int(value)
    except (OSError, ValueError):
        return None
    return None


def read_oom_kills(path: Path) -> int | None:
    """The `oom_kill N` line of memory.oom_control (v1, kernel ≥ 4.13) or memory.events (v2)."""
    return read_counter(path, "oom_kill")


def oom_files(container_id: str, root: Path = CGROUP_ROOT) -> tuple[Path, ...]:
    """The container's OOM-kill counter, and its commands' child's where it has one."""
    path = oom_file(container_id, root)
    if path is None:
        return ()
    child = path.parent / COMMANDS_CHILD / path.name
    return (path, child) if child.is_file() else (path,)


def read_total(paths: tuple[Path, ...]) -> int | None:
    """The kills counted in all of them (cgroup v1 counts a kill only where the limit was met)."""
    counts = [read_oom_kills(path) for path in paths]
    return None if not counts or None in counts else sum(counts)


@dataclass
class Sensors:
    """Per-call deltas of the container's counters: what happened during this call only."""

    oom_paths: tuple[Path, ...]
    oom_before: int | None = None

    @classmethod
    def attach(cls, container_id: str, root: Path = CGROUP_ROOT) -> Sensors | None:
        paths = oom_files(container_id, root)
        before = read_total(paths)
        return None if before is None else cls(paths, before)

    def after_call(self) -> dict[str, int] | None:
        now = read_total(self.oom_paths)
        if now is None or self.oom_before is None:
            return None
        delta, self.oom_before = now - self.oom_before, now
        return {OOM_KILLS: delta}
