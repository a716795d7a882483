"""The commands' own cgroup (infra/cgroups.py) found and made under a cgroup tree laid out as the
engine lays it out (a folder, written as the kernel's files are), and its join socket over a real
unix socket with the kernel's SO_PEERCRED (infra/commands_socket.py), run by harness/shell/join.py."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from impasse.catalog.cards import load_cards
from impasse.infra.cgroups import (
    CHILD,
    CgroupUnavailable,
    Commands,
    container_dirs,
    in_container,
    limits_commands,
    parent_pid,
)
from impasse.infra.commands_socket import JoinServer
from impasse.infra.sensors import Sensors
from impasse.paths import HARNESS

CID = "0123456789abcdef" * 4


def v1_tree(root: Path, layout: str = "docker/{id}") -> Path:
    for controller in ("memory", "pids"):
        (root / controller / layout.format(id=CID)).mkdir(parents=True)
    return root


def test_a_v1_containers_memory_and_pids_cgroups_are_found_under_either_driver(tmp_path):
    cgroupfs = v1_tree(tmp_path / "a")
    assert container_dirs(CID, cgroupfs) == {"memory": cgroupfs / f"memory/docker/{CID}",
                                             "pids": cgroupfs / f"pids/docker/{CID}"}
    systemd = v1_tree(tmp_path / "b", "system.slice/docker-{id}.scope")
    assert container_dirs(CID, systemd)["pids"] == systemd / f"pids/system.slice/docker-{CID}.scope"


def test_cgroup_v2_and_a_missing_container_are_refused_in_words(tmp_path):
    (tmp_path / "cgroup.controllers").write_text("cpu memory pids\n")
    with pytest.raises(CgroupUnavailable, match="cgroup v2"):
        container_dirs(CID, tmp_path)
    with pytest.raises(CgroupUnavailable, match="no memory cgroup of container 0123456789ab"):
        container_dirs(CID, tmp_path / "elsewhere")
    (tmp_path / "v1" / "memory" / "docker" / CID).mkdir(parents=True)  # memory but no pids
    with pytest.raises(CgroupUnavailable, match="no pids cgroup"):
        container_dirs(CID, tmp_path / "v1")


def test_the_child_is_made_with_the_cards_memory_then_held_lifted_and_removed(tmp_path):
    root = v1_tree(tmp_path)
    made = Commands.make(CID, 128 * 1024**2, root)
    memory, pids = root / f"memory/docker/{CID}/{CHILD}", root / f"pids/docker/{CID}/{CHILD}"
    assert made.dirs == {"memory": memory, "pids": pids}
    assert (memory / "memory.limit_in_bytes").read_text() == str(128 * 1024**2)
    assert (memory / "memory.memsw.limit_in_bytes").read_text() == str(128 * 1024**2)
    assert Commands.find(CID, root) == made
    made.set_pids(1)
    assert (pids / "pids.max").read_text() == "1"
    made.set_pids(None)
    assert (pids / "pids.max").read_text() == "max"
    made.join(4242)
    assert (memory / "cgroup.procs").read_text() == (pids / "cgroup.procs").read_text() == "4242"
    for path in made.dirs.values():
        for child in path.iterdir():
            child.unlink()  # the kernel's files go with the folder; these are plain files
    made.remove()
    assert not memory.exists() and not pids.exists() and Commands.find(CID, root) is None
    made.remove()  # gone already (with the container): nothing to do


def test_a_child_that_cannot_be_made_is_the_harness_error(tmp_path):
    root = v1_tree(tmp_path)
    (root / f"memory/docker/{CID}/{CHILD}").write_text("")  # a file where the folder must go
    with pytest.raises(CgroupUnavailable, match="could not make the commands' cgroup"):
        Commands.make(CID, None, root)


def test_the_sensor_adds_the_commands_kills_to_the_containers(tmp_path):
    root = v1_tree(tmp_path)
    parent = root / f"memory/docker/{CID}"
    (parent / "memory.oom_control").write_text("oom_kill_disable 0\nunder_oom 0\noom_kill 2\n")
    Commands.make(CID, None, root)
    (parent / CHILD / "memory.oom_control").write_text("oom_kill_disable 0\noom_kill 0\n")
    sensors = Sensors.attach(CID, root)
    (parent / CHILD / "memory.oom_control").write_text("oom_kill_disable 0\noom_kill 1\n")
    assert sensors.after_call() == {"oom_kills": 1}
    assert sensors.after_call() == {"oom_kills": 0}


def test_the_cards_that_limit_the_commands():
    cards = load_cards()
    assert limits_commands(cards["oom_kill"]) and limits_commands(cards["flaky_sandbox"])
    assert not limits_commands(cards["chown_root"]) and not limits_commands(cards["none"])


def test_a_process_and_its_parent_are_read_from_proc():
    assert parent_pid(os.getpid()) == os.getppid()
    assert parent_pid(2**22 + 1) is None
    assert not in_container(os.getpid(), CID)


def own_memory_cgroup() -> str:
    lines = Path("/proc/self/cgroup").read_text().splitlines()
    return next((line.split(":", 2)[2] for line in lines if ":memory:" in line), "")


def join(socket_path: str) -> subprocess.CompletedProcess:
    """join.py as the agent's shell runs it: a child of a bash."""
    script = f"{sys.executable} -I -S {HARNESS / 'shell' / 'join.py'}; echo status=$?"
    return subprocess.run(["bash", "-c", script], env={"IMPASSE_COMMANDS_SOCKET": socket_path, "PATH": "/usr/bin:/bin"},
                          capture_output=True, text=True, timeout=30)


@pytest.mark.skipif(not own_memory_cgroup(), reason="no cgroup v1 memory controller here")
def test_the_socket_moves_the_peer_the_kernel_names_and_refuses_another_containers(tmp_path):
    root = v1_tree(tmp_path / "cg")
    made = Commands.make(CID, None, root)
    # This test's own processes stand for the container's: their memory cgroup names "ours".
    server = JoinServer(made, own_memory_cgroup(), str(tmp_path / "commands.sock"))
    try:
        done = join(server.path)
        assert done.stdout.strip() == "status=0" and server.joined == 1, done.stderr
        joined = int((made.dirs["pids"] / "cgroup.procs").read_text())  # the joiner, written last
        assert joined > 0 and joined != os.getpid()
    finally:
        server.close()
    assert not Path(server.path).exists()
    other = JoinServer(made, "f" * 64, str(tmp_path / "other.sock"))
    try:
        refused = join(other.path)
    finally:
        other.close()
    assert refused.stdout.strip() == "status=125" and other.joined == 0
    assert "could not join its cgroup: error: process" in refused.stderr and "is not the container's" in refused.stderr
    assert len(other.failures) == 1
