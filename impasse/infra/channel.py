"""The host side of the persistent exec channel (harness/channel.py): one exec per episode instead
of one per command, same semantics as `Sandbox.exec` (cwd, user, in-container timeout that kills the
process group, head/tail truncation, replacement decoding). If the channel dies, that is an
infrastructure failure (`SandboxUnavailable`), never command output."""

from __future__ import annotations

import json
import socket
import struct
import time

from impasse.infra.sandbox import AGENT_USER, HOST_GRACE_SECONDS, WORKDIR, ExecResult, Sandbox, SandboxUnavailable

SCRIPT = "/opt/impasse/channel.py"
HEADER = struct.Struct(">BxxxL")  # docker's multiplexed stream: type, 3 pad bytes, payload size
STDOUT = 1


class Channel:
    def __init__(self, box: Sandbox, user: str = AGENT_USER) -> None:
        self.box = box
        api = box.api.api
        self.exec_id = api.exec_create(box.id, ["python3", "-u", SCRIPT], user=user, stdin=True,
                                       workdir=WORKDIR)["Id"]
        attached = api.exec_start(self.exec_id, socket=True)
        self.sock: socket.socket = getattr(attached, "_sock", attached)
        self.pending = b""  # bytes of a frame not yet complete
        self.lines = b""  # stdout payload not yet split into lines
        self.counter = 0
        ready = self.read_line(timeout=30)
        if "ready" not in ready:
            raise SandboxUnavailable(f"the exec channel did not start: {ready}")

    def read_line(self, timeout: float) -> dict:
        deadline = time.monotonic() + timeout
        while b"\n" not in self.lines:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise SandboxUnavailable("the exec channel did not answer in time")
            self.sock.settimeout(remaining)
            try:
                chunk = self.sock.recv(65536)
            except (TimeoutError, OSError) as err:
                raise SandboxUnavailable(f"the exec channel failed: {err}") from err
            if not chunk:
                raise SandboxUnavailable("the exec channel died (its process is gone)")
            self.demultiplex(chunk)
        line, self.lines = self.lines.split(b"\n", 1)
        return json.loads(line)

    def demultiplex(self, chunk: bytes) -> None:
        self.pending += chunk
        while len(self.pending) >= HEADER.size:
            kind, size = HEADER.unpack_from(self.pending)
            if len(self.pending) < HEADER.size + size:
                return
            payload = self.pending[HEADER.size:HEADER.size + size]
            self.pending = self.pending[HEADER.size + size:]
            if kind == STDOUT:
                self.lines += payload

    def run(self, command: str, timeout: int = 120, cwd: str = WORKDIR) -> ExecResult:
        self.counter += 1
        request = {"id": self.counter, "command": command, "timeout": timeout, "cwd": cwd}
        try:
            self.sock.sendall(json.dumps(request).encode() + b"\n")
        except OSError as err:
            raise SandboxUnavailable(f"the exec channel is gone: {err}") from err
        reply = self.read_line(timeout + HOST_GRACE_SECONDS)
        if "error" in reply:
            raise SandboxUnavailable(f"the exec channel could not run the command: {reply['error']}")
        return ExecResult(reply["output"], reply["exit_code"], reply["duration"], reply["truncated_bytes"],
                          reply["timed_out"])

    def close(self) -> None:
        try:
            self.sock.shutdown(socket.SHUT_WR)
            self.sock.close()
        except OSError:
            pass
