"""The relay folders a killed run leaves behind (its socket with no relay behind it) are swept when
the next external agent starts; a live relay's, a young one's and one still without a socket stay."""

from __future__ import annotations

import os
import socket
import time

from impasse.agents.external import RELAY_PREFIX, sweep_stale_relays


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
