"""An exec fed through its stdin, and docker's multiplexed stream read back from it.

One exec with its input piped in replaces several: the grader's workspace goes in, its old files out
and the pristine tests back in one `sh -c` (each exec costs the engine, runc and the container about
90 ms of CPU, which at dozens of episodes in flight is most of what a machine has to spare)."""

from __future__ import annotations

import socket
import struct
import time

import docker

HEADER = struct.Struct(">BxxxL")  # docker's multiplexed stream: type, 3 pad bytes, payload size
STDOUT, STDERR = 1, 2


class Demux:
    """Splits docker's multiplexed exec stream into its payloads, chunk by chunk."""

    def __init__(self, kinds: tuple[int, ...] = (STDOUT, STDERR)) -> None:
        self.kinds = kinds
        self.pending = b""  # bytes of a frame not yet complete

    def feed(self, chunk: bytes) -> bytes:
        """The payload bytes of the kinds asked for that `chunk` completes."""
        self.pending += chunk
        payload = bytearray()
        while len(self.pending) >= HEADER.size:
            kind, size = HEADER.unpack_from(self.pending)
            if len(self.pending) < HEADER.size + size:
                break
            if kind in self.kinds:
                payload += self.pending[HEADER.size:HEADER.size + size]
            self.pending = self.pending[HEADER.size + size:]
        return bytes(payload)


def run_with_stdin(api: docker.APIClient, container: str, argv: list[str], data: bytes, user: str,
                   workdir: str = "/", keep: int = 64 * 1024) -> tuple[int | None, str]:
    """Run `argv` with `data` on its stdin; returns its exit code and the last `keep` bytes of its
    output (stdout and stderr)."""
    exec_id = api.exec_create(container, argv, user=user, workdir=workdir, stdin=True)["Id"]
    attached = api.exec_start(exec_id, socket=True)
    raw = getattr(attached, "_sock", attached)
    raw.sendall(data)
    raw.shutdown(socket.SHUT_WR)
    demux, output = Demux(), bytearray()
    while chunk := raw.recv(65536):
        output += demux.feed(chunk)
        del output[:-keep]
    raw.close()
    return exit_code(api, exec_id), output.decode("utf-8", errors="replace")


def exit_code(api: docker.APIClient, exec_id: str, wait: float = 10.0) -> int | None:
    """An exec's exit code, waiting briefly for the daemon to notice that it ended."""
    deadline = time.monotonic() + wait
    while True:
        info = api.exec_inspect(exec_id)
        if not info.get("Running") or time.monotonic() > deadline:
            return info.get("ExitCode")
        time.sleep(0.02)
