"""The host side of the persistent exec channel (harness/channel.py): one exec per episode instead
of one per command, same semantics as `Sandbox.exec` (cwd, user, in-container timeout that kills the
process group, head/tail truncation, replacement decoding). If the channel dies, that is an
infrastructure failure (`SandboxUnavailable`), never command output."""

from __future__ import annotations

import json
import socket
import time
from contextlib import suppress

import docker.errors

from impasse.infra.piped import STDOUT, Demux, attach
from impasse.infra.sandbox import AGENT_USER, HOST_GRACE_SECONDS, WORKDIR, ExecResult, Sandbox, SandboxUnavailable

SCRIPT = "/opt/impasse/channel.py"


class Channel:
    def __init__(self, box: Sandbox, user: str = AGENT_USER) -> None:
        self.box, self.user = box, user
        self.counter = 0
        self.open()

    def open(self) -> None:
        api = self.box.api.api
        self.exec_id = api.exec_create(self.box.id, ["python3", "-u", SCRIPT], user=self.user, stdin=True,
                                       workdir=WORKDIR)["Id"]
        # The HTTP response is kept so that no collector closes the connection under the socket: it
        # lives as long as the channel.
        self.attached = attach(api, self.exec_id)
        self.sock: socket.socket = self.attached.sock
        self.demux = Demux((STDOUT,))
        self.lines = self.demux.feed(self.attached.early)  # stdout payload not yet split into lines
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
            self.lines += self.demux.feed(chunk)
        line, self.lines = self.lines.split(b"\n", 1)
        return json.loads(line)

    def run(self, command: str, timeout: int = 120, cwd: str = WORKDIR) -> ExecResult:
        return self.ask({"command": command, "timeout": timeout, "cwd": cwd}, timeout)

    def edit(self, payload: str, timeout: int = 120, cwd: str = WORKDIR) -> ExecResult:
        """edit_file with its base64 arguments, carried out by the channel itself (harness/channel.py)."""
        return self.ask({"edit": payload, "timeout": timeout, "cwd": cwd}, timeout)

    def ask(self, request: dict, timeout: int) -> ExecResult:
        self.counter += 1
        line = json.dumps({"id": self.counter, **request}).encode() + b"\n"
        try:
            self.sock.sendall(line)
        except OSError:
            self.send_again(line)
        reply = self.read_line(timeout + HOST_GRACE_SECONDS)
        if "error" in reply:
            raise SandboxUnavailable(f"the exec channel could not run the command: {reply['error']}")
        return ExecResult(reply["output"], reply["exit_code"], reply["duration"], reply["truncated_bytes"],
                          reply["timed_out"])

    def send_again(self, line: bytes) -> None:
        """The request could not be written, so the channel ran none of it (it acts on whole lines
        only): a new channel takes it. A channel that cannot be reopened is gone."""
        self.close()
        try:
            self.open()
            self.sock.sendall(line)
        except (OSError, docker.errors.APIError) as err:
            raise SandboxUnavailable(f"the exec channel is gone: {err}") from err

    def close(self) -> None:
        """Each step on its own: a socket already dead (shutdown fails) is still closed and released."""
        for step in (lambda: self.sock.shutdown(socket.SHUT_WR), self.sock.close, self.attached.close):
            with suppress(OSError):
                step()
