"""The relay's socket folder on the host (one per external agent's run, bind-mounted into its
container), and the sweep of those killed runs left behind."""

from __future__ import annotations

import os
import re
import shutil
import socket
import tempfile
import time
from pathlib import Path

from impasse.infra.reaper import pid_alive

RELAY_PREFIX = "impasse-relay-"
STALE_AFTER = 60.0  # seconds: a relay folder younger than this may belong to a run still starting
OWNER = re.compile(r"(\d+)-")  # the pid in a relay folder's name, after RELAY_PREFIX


def relay_folder() -> str:
    """A new relay folder, named for this process (short: a socket path has a length limit)."""
    folder = tempfile.mkdtemp(prefix=f"{RELAY_PREFIX}{os.getpid()}-")
    Path(folder).chmod(0o755)
    return folder


def sweep_stale_relays(root: str | None = None, older_than: float = STALE_AFTER) -> list[Path]:
    """The relay folders killed runs left behind (kill -9 runs no cleanup; gc removes only their
    containers): ours, and either made by a process that is gone (its pid is in the folder's name; a
    run killed after its relay closed leaves the folder without a socket), or older than `older_than`
    seconds with a socket that refuses connections (no relay behind it). A live run's folder is left
    alone, whether its socket is up yet or not."""
    swept = []
    for folder in Path(root or tempfile.gettempdir()).glob(f"{RELAY_PREFIX}*"):
        try:
            if folder.stat().st_uid != os.getuid() or not left_behind(folder, older_than):
                continue
        except OSError:
            continue
        shutil.rmtree(folder, ignore_errors=True)
        swept.append(folder)
    return swept


def left_behind(folder: Path, older_than: float) -> bool:
    maker = OWNER.match(folder.name.removeprefix(RELAY_PREFIX))
    if maker is not None:
        return not pid_alive(maker.group(1))
    socket_path = folder / "model.sock"
    old = time.time() - folder.stat().st_mtime >= older_than
    return old and socket_path.is_socket() and refuses(socket_path)


def refuses(socket_path: Path) -> bool:
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as probe:
        probe.settimeout(1)
        try:
            probe.connect(str(socket_path))
        except (ConnectionRefusedError, FileNotFoundError):
            return True
        except OSError:
            return False  # busy or slow: maybe alive
    return False


