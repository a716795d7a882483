"""The relay folders a killed run leaves behind (its socket with no relay behind it) are swept when
the next external agent starts; a live relay's, a young one's and one still without a socket stay."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path

import pytest

from impasse.agents.relay_folders import RELAY_PREFIX, sweep_stale_relays


@pytest.fixture
def short_tmp():
    """A folder with a short path: a socket's path has a length limit (pytest's tmp_path under xdist passes it)."""
    folder = Path(tempfile.mkdtemp(prefix="rs"))
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def folder_with_socket(root, name: str, listening: bool) -> tuple:
    folder = root / f"{RELAY_PREFIX}{name}"
    folder.mkdir()
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(str(folder / "model.sock"))
    if listening:
        server.listen(1)
    else:
        server.close()  # the file stays, as after kill -9: connecting is refused
    return folder, server


def aged(folder, seconds: float = 600) -> None:
    past = time.time() - seconds
    os.utime(folder, (past, past))


def test_only_a_dead_relays_old_folder_is_swept(tmp_path):
    dead, _ = folder_with_socket(tmp_path, "dead", listening=False)
    live, server = folder_with_socket(tmp_path, "live", listening=True)
    young, _ = folder_with_socket(tmp_path, "young", listening=False)
    starting = tmp_path / f"{RELAY_PREFIX}starting"
    starting.mkdir()
    other = tmp_path / "something-else"
    other.mkdir()
    for folder in (dead, live, starting, other):
        aged(folder)
    try:
        assert sweep_stale_relays(str(tmp_path)) == [dead]
    finally:
        server.close()
    assert not dead.exists()
    assert live.exists() and young.exists() and starting.exists() and other.exists()


def test_a_folder_named_for_a_gone_process_is_swept_socket_or_not_and_a_live_ones_stays(short_tmp):
    """A run killed after its relay closed (the socket file gone) left its folder: the pid in its
    name says whose it was. This process's own folder stays, however old and whatever its socket."""
    tmp_path = short_tmp
    gone = subprocess.Popen(["true"])
    gone.wait()
    dead = tmp_path / f"{RELAY_PREFIX}{gone.pid}-abcd1234"
    dead.mkdir()  # young, and no socket: a folder-only rule would keep it forever
    mine, _ = folder_with_socket(tmp_path, f"{os.getpid()}-efgh5678", listening=False)
    aged(mine)
    assert sweep_stale_relays(str(tmp_path), older_than=0) == [dead]
    assert not dead.exists() and mine.exists()


def test_a_new_relay_folder_is_named_for_this_process():
    from impasse.agents.relay_folders import OWNER, relay_folder
    folder = Path(relay_folder())
    try:
        assert OWNER.match(folder.name.removeprefix(RELAY_PREFIX)).group(1) == str(os.getpid())
        assert oct(folder.stat().st_mode & 0o777) == "0o755"
    finally:
        folder.rmdir()
