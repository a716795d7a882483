"""An exec fed through its stdin, and docker's multiplexed stream read back from it.

One exec with its input piped in replaces several: the grader's workspace goes in, its old files out
and the pristine tests back in one `sh -c` (each exec costs the engine, runc and the container about
90 ms of CPU, which at dozens of episodes in flight is most of what a machine has to spare).

An exec is started and read here, never by docker-py's own stream readers: those read the socket
under the HTTP response's buffered reader, which may already hold the stream's first bytes (taken in
with the response's headers when the command answers at once on a busy machine). They were lost, the
frame headers fell out of step, and payload was read as a header: "10 is not a valid stream", or a
silently garbled output. `frames` reads through that reader; `attach` hands a caller that needs the
socket itself those bytes first."""

from __future__ import annotations

import socket
import struct
import time
from collections.abc import Iterator
from dataclasses import dataclass

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


UPGRADE = {"Connection": "Upgrade", "Upgrade": "tcp"}


def started(api: docker.APIClient, exec_id: str):
    """The exec started and attached: the HTTP response whose connection carries its stream."""
    response = api._post_json(api._url("/exec/{0}/start", exec_id), headers=UPGRADE,
                              data={"Tty": False, "Detach": False}, stream=True)
    api._raise_for_status(response)
    return response


def frames(api: docker.APIClient, exec_id: str) -> Iterator[tuple[int, bytes]]:
    """The exec's frames (kind, payload) to its end, read through the response's own reader."""
    response = started(api, exec_id)
    reader = response.raw._fp.fp
    reader.raw._sock.settimeout(None)  # as long as the command runs: the caller's clock, not the client's, cuts it
    try:
        while len(header := reader.read(HEADER.size)) == HEADER.size:
            kind, size = HEADER.unpack(header)
            yield kind, reader.read(size)
    finally:
        response.close()


@dataclass
class Attached:
    sock: socket.socket
    early: bytes  # the stream's first bytes, already taken in with the response's headers
    response: object  # kept: the connection under the socket lives as long as it does

    def close(self) -> None:
        self.response.close()


def attach(api: docker.APIClient, exec_id: str) -> Attached:
    response = started(api, exec_id)
    reader = response.raw._fp.fp
    sock = reader.raw._sock
    timeout = sock.gettimeout()
    sock.setblocking(False)  # what the reader holds, and nothing it would wait for
    try:
        early = reader.read1(1 << 20) or b""
    except BlockingIOError:
        early = b""
    finally:
        sock.settimeout(timeout)
    return Attached(sock, early, response)


def run_with_stdin(api: docker.APIClient, container: str, argv: list[str], data: bytes, user: str,
                   workdir: str = "/", keep: int = 64 * 1024) -> tuple[int | None, str]:
    """Run `argv` with `data` on its stdin; returns its exit code and the last `keep` bytes of its
    output (stdout and stderr)."""
    exec_id = api.exec_create(container, argv, user=user, workdir=workdir, stdin=True)["Id"]
    attached = attach(api, exec_id)
    raw = attached.sock
    demux = Demux()
    output = bytearray(demux.feed(attached.early))
    raw.sendall(data)
    raw.shutdown(socket.SHUT_WR)
    while chunk := raw.recv(65536):
        output += demux.feed(chunk)
        del output[:-keep]
    raw.close()
    attached.close()
    return exit_code(api, exec_id), output.decode("utf-8", errors="replace")


def exit_code(api: docker.APIClient, exec_id: str, wait: float = 10.0) -> int | None:
    """An exec's exit code, waiting briefly for the daemon to notice that it ended."""
    deadline = time.monotonic() + wait
    while True:
        info = api.exec_inspect(exec_id)
        if not info.get("Running") or time.monotonic() > deadline:
            return info.get("ExitCode")
        time.sleep(0.02)
