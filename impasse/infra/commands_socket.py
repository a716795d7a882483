"""Where an agent's shell joins its commands' cgroup (infra/cgroups.py): a unix socket on the host,
in the relay's folder (bind-mounted into the container), answered by a thread of the harness.

Every bash the agent starts sources `harness/shell/bash_env.sh` (the agent's `BASH_ENV`) before
its command; that runs `join.py`, which connects here. The kernel hands the listener the peer's
pid in the host's numbering (SO_PEERCRED), so nothing the container says is trusted: the peer and
its parent (the shell) are moved into the child only if both are the container's own processes,
and the answer goes back once they are in. The shell then runs its command inside the child, and
everything it starts inherits it. Whatever connects, only this container's processes can be moved,
and only into its own child."""

from __future__ import annotations

import contextlib
import os
import socket
import struct
import threading
from dataclasses import dataclass, field

from impasse.infra.cgroups import CgroupUnavailable, Commands, in_container, parent_pid

SOCKET_NAME = "commands.sock"
PEERCRED = struct.Struct("3i")  # struct ucred: pid, uid, gid


@dataclass
class JoinServer:
    """The listener of one container's child cgroup. `joined`: how many shells joined; `failures`:
    what went wrong, in words (a shell that could not join ran nothing: the run is the harness's error)."""

    commands: Commands
    container_id: str
    path: str
    joined: int = 0
    failures: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.listener.bind(self.path)
        os.chmod(self.path, 0o666)  # the agent user connects
        self.listener.listen(64)
        self.thread = threading.Thread(target=self.serve, name="commands-cgroup", daemon=True)
        self.thread.start()

    def serve(self) -> None:
        while True:
            try:
                peer, _ = self.listener.accept()
            except OSError:  # closed: the episode is over
                return
            with peer:
                peer.settimeout(10)
                answer = self.answer(peer)
                with contextlib.suppress(OSError):
                    peer.sendall(answer.encode() + b"\n")

    def answer(self, peer: socket.socket) -> str:
        pid = PEERCRED.unpack(peer.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, PEERCRED.size))[0]
        shell = parent_pid(pid)
        try:
            if shell is None or not (in_container(pid, self.container_id) and in_container(shell, self.container_id)):
                raise CgroupUnavailable(f"process {pid} (parent {shell}) is not the container's")
            self.commands.join(shell)  # the shell first: what it starts after the answer is inside
            self.commands.join(pid)  # the joiner too, whose own fork then meets the child's limit
        except CgroupUnavailable as err:
            self.failures.append(str(err))
            return f"error: {err}"
        self.joined += 1
        return "ok"

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self.listener.shutdown(socket.SHUT_RDWR)
        self.listener.close()
        self.thread.join(timeout=5)
        with contextlib.suppress(FileNotFoundError):
            os.unlink(self.path)
