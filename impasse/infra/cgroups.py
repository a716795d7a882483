"""A child cgroup for the commands an agent inside its container runs, so a card's limit falls on
them and not on the agent.

An agent that runs in the blocked container (Claude Code, Codex, …) counts against the container's
own cgroups: oom_kill's 128 MiB would kill the agent before the tests, and flaky_sandbox's full
process table would refuse the agent's runtime its own threads. So for those cards the container
keeps the control's limits and the harness makes, from the host, a child cgroup `commands` under the
container's memory and pids cgroups (cgroup v1 is hierarchical and lets a child sit beside
processes): the card's memory limit is the child's, and flaky_sandbox's hold is the child's
`pids.max`. Every shell the agent starts joins the child before it runs anything (the agent's
`BASH_ENV`, harness/shell/; the relay folder's `commands.sock`, agents/commands_socket.py), so
what the shell starts inherits it; the agent's own process and threads stay in the parent.

cgroup v2 is not taken: its container cgroup holds processes, and v2 gives a child controllers
only from a cgroup without any (the "no internal processes" rule), so the container's own
processes would have to move first. Refused in words (`CgroupUnavailable`), never a silent fall
back to limiting the agent."""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from pathlib import Path

from impasse.infra.sandbox import SandboxUnavailable
from impasse.infra.sensors import CGROUP_ROOT, COMMANDS_CHILD

CHILD = COMMANDS_CHILD
CONTROLLERS = ("memory", "pids")
# A container's cgroup under each v1 controller, by the engine's cgroup driver.
V1_LAYOUTS = ("{controller}/docker/{id}", "{controller}/system.slice/docker-{id}.scope")
UNLIMITED = -1  # memory.limit_in_bytes: no limit of the child's own (the container's still holds)


def limits_commands(card) -> bool:
    """Whether the card's limit is the commands' when the agent runs in the container: a memory
    limit (oom_kill), or a process table held by the faults (flaky_sandbox's injector)."""
    return "mem_limit" in card.inject.docker_run or card.inject.injector is not None


class CgroupUnavailable(SandboxUnavailable):
    """The host's cgroups cannot give the commands a cgroup of their own: a harness error, in words."""


def container_dirs(container_id: str, root: Path = CGROUP_ROOT) -> dict[str, Path]:
    """The container's memory and pids cgroups on this host (cgroup v1, either driver)."""
    if (root / "cgroup.controllers").is_file():
        raise CgroupUnavailable(
            "this host runs cgroup v2: impasse gives an agent's commands a cgroup of their own only on "
            "cgroup v1 (v2 takes no child with controllers beside the container's own processes)")
    found = {}
    for controller in CONTROLLERS:
        for layout in V1_LAYOUTS:
            path = root / layout.format(controller=controller, id=container_id)
            if path.is_dir():
                found[controller] = path
                break
        else:
            raise CgroupUnavailable(
                f"no {controller} cgroup of container {container_id[:12]} under {root} (a remote engine, "
                f"or a layout impasse does not know): its commands cannot be given a cgroup of their own")
    return found


@dataclass(frozen=True)
class Commands:
    """The child cgroup `commands` of one container, one folder per controller."""

    dirs: dict[str, Path]

    @classmethod
    def make(cls, container_id: str, memory_bytes: int | None, root: Path = CGROUP_ROOT) -> Commands:
        """The child made (as root on the host), the card's memory limit on it: memory and swap alike
        (the card's memswap equals its memory), so the commands meet the kernel's OOM killer, not swap."""
        dirs = {name: parent / CHILD for name, parent in container_dirs(container_id, root).items()}
        try:
            for path in dirs.values():
                path.mkdir(exist_ok=True)
        except OSError as err:
            raise CgroupUnavailable(f"could not make the commands' cgroup {path}: {err}") from err
        made = cls(dirs)
        if memory_bytes is not None:
            made.set_memory(memory_bytes)
        return made

    @classmethod
    def find(cls, container_id: str, root: Path = CGROUP_ROOT) -> Commands | None:
        """The container's child, if it has one (the sensors, the operator's lift)."""
        try:
            dirs = {name: parent / CHILD for name, parent in container_dirs(container_id, root).items()}
        except CgroupUnavailable:
            return None
        return cls(dirs) if all(path.is_dir() for path in dirs.values()) else None

    def set_memory(self, limit: int) -> None:
        """`limit` bytes (UNLIMITED: none of its own). v1 takes memsw no lower than memory: the order
        of the two writes follows the direction of the change."""
        memory = self.dirs["memory"]
        files = ["memory.limit_in_bytes"]
        if (memory / "memory.memsw.limit_in_bytes").exists() or not (memory / "memory.limit_in_bytes").exists():
            files.append("memory.memsw.limit_in_bytes")  # absent where swap accounting is off
        if limit == UNLIMITED or limit > self.memory_limit():
            files.reverse()
        for name in files:
            write(memory / name, str(limit))

    def memory_limit(self) -> int:
        try:
            return int((self.dirs["memory"] / "memory.limit_in_bytes").read_text())
        except (OSError, ValueError):
            return 0

    def set_pids(self, limit: int | None) -> None:
        """The child's process limit (None: none of its own, the container's still holds)."""
        write(self.dirs["pids"] / "pids.max", "max" if limit is None else str(limit))

    def join(self, pid: int) -> None:
        """`pid` (the host's number) into the child, in every controller: its whole thread group."""
        for path in self.dirs.values():
            write(path / "cgroup.procs", str(pid))

    @property
    def oom_control(self) -> Path:
        return self.dirs["memory"] / "memory.oom_control"

    @property
    def pids_events(self) -> Path:
        return self.dirs["pids"] / "pids.events"

    def remove(self) -> None:
        """Each child folder removed once its processes are gone (the engine removes a container's
        cgroup with its children too; this is for the case it did not)."""
        for path in self.dirs.values():
            with contextlib.suppress(OSError):  # gone with the container, or a process still inside
                path.rmdir()


def write(path: Path, value: str) -> None:
    try:
        path.write_text(value)
    except OSError as err:
        raise CgroupUnavailable(f"could not write {value} to {path}: {err}") from err


def in_container(pid: int, container_id: str, proc: Path = Path("/proc")) -> bool:
    """Whether host process `pid` belongs to the container (its memory cgroup names it): the socket
    moves only the container's own processes, whoever connects."""
    try:
        text = (proc / str(pid) / "cgroup").read_text()
    except OSError:
        return False
    return any(container_id in line for line in text.splitlines() if ":memory:" in line)


def parent_pid(pid: int, proc: Path = Path("/proc")) -> int | None:
    try:
        for line in (proc / str(pid) / "status").read_text().splitlines():
            if line.startswith("PPid:"):
                return int(line.split()[1])
    except (OSError, ValueError, IndexError):
        return None
    return None
