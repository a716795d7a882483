"""The forwarder for real: a TCP port on 127.0.0.1 carried to a unix socket where a real server
listens (an HTTP server speaking SSE as the relay does, and a raw echo for half-closes)."""

from __future__ import annotations

import http.client
import http.server
import json
import os
import signal
import socket
import socketserver
import subprocess
import sys
import tempfile
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from impasse.paths import HARNESS

FORWARDER = HARNESS / "model_forwarder.py"
GO = threading.Event()  # the streamed reply's second event waits for it


class RelayLike(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def address_string(self) -> str:  # a unix socket's peer has no host
        return "relay"

    def log_message(self, *args) -> None:
        pass

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers["Content-Length"]))
        if self.path == "/v1/stream":
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Connection", "close")
            self.end_headers()
            self.wfile.write(b"event: message_start\ndata: {}\n\n")
            self.wfile.flush()
            GO.wait(10)
            self.wfile.write(b"event: message_stop\ndata: {}\n\n")
            self.wfile.flush()
            self.close_connection = True
            return
        reply = json.dumps({"path": self.path, "bytes": len(body), "head": body[:20].decode()}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(reply)))
        self.end_headers()
        self.wfile.write(reply)


class UnixHttp(socketserver.ThreadingMixIn, socketserver.UnixStreamServer):
    daemon_threads = True


class ReverseEcho(socketserver.BaseRequestHandler):
    """Reads to the end of the request (the client's half-close), then answers it reversed."""

    def handle(self) -> None:
        data = bytearray()
        while chunk := self.request.recv(65536):
            data += chunk
        self.request.sendall(bytes(reversed(data)))


class UnixRaw(socketserver.ThreadingMixIn, socketserver.UnixStreamServer):
    daemon_threads = True


@pytest.fixture
def folder() -> Iterator[Path]:
    with tempfile.TemporaryDirectory(dir="/tmp", prefix="fwd-") as path:  # a unix socket path is short
        yield Path(path)


@contextmanager
def serving(server: socketserver.BaseServer) -> Iterator[None]:
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield
    finally:
        server.shutdown()
        server.server_close()


class Forwarder:
    def __init__(self, socket_path: Path, wait: float = 10) -> None:
        self.process = subprocess.Popen([sys.executable, "-I", "-S", str(FORWARDER), "--port", "0",
                                         "--socket", str(socket_path), "--wait", str(wait)],
                                        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)

    def port(self) -> int:
        line = self.process.stdout.readline()
        assert line.startswith("listening 127.0.0.1:"), line + self.process.stderr.read()
        return int(line.rsplit(":", 1)[1])

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait(timeout=10)
        self.process.stdout.close()
        self.process.stderr.close()


@pytest.fixture
def http_relay(folder) -> Iterator[Path]:
    path = folder / "model.sock"
    with serving(UnixHttp(str(path), RelayLike)):
        yield path


@pytest.fixture
def forwarder(http_relay) -> Iterator[tuple[Forwarder, int]]:
    started = Forwarder(http_relay)
    port = started.port()
    yield started, port
    started.stop()


def post(port: int, path: str, body: bytes) -> http.client.HTTPResponse:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    connection.request("POST", path, body=body, headers={"Content-Type": "application/json"})
    return connection.getresponse()


def test_a_request_and_its_reply_cross_unchanged(forwarder):
    _, port = forwarder
    body = json.dumps({"model": "claude", "messages": [{"role": "user", "content": "x" * 300_000}]}).encode()
    reply = json.loads(post(port, "/v1/messages?beta=true", body).read())
    assert reply == {"path": "/v1/messages?beta=true", "bytes": len(body), "head": body[:20].decode()}


def test_a_streamed_reply_arrives_as_it_is_sent_not_at_its_end(forwarder):
    _, port = forwarder
    GO.clear()
    response = post(port, "/v1/stream", b"{}")
    assert response.headers["Content-Type"] == "text/event-stream"
    first = response.fp.readline()  # the second event is held back until GO: a buffering forwarder hangs here
    assert first == b"event: message_start\n"
    GO.set()
    assert b"message_stop" in response.read()


def test_many_connections_at_once(forwarder):
    _, port = forwarder
    results: list[int] = []

    def one(i: int) -> None:
        results.append(json.loads(post(port, f"/v1/responses/{i}", b"y" * (1000 * i)).read())["bytes"])

    threads = [threading.Thread(target=one, args=(i,)) for i in range(12)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=20)
    assert sorted(results) == [1000 * i for i in range(12)]


def test_it_carries_every_connection_on_its_one_thread(forwarder):
    """It may start nothing while it runs: under flaky_sandbox the process table is held full while
    the agent works, and the request that ends the hold must come through (a thread per connection
    could not be started then)."""
    started, port = forwarder
    GO.clear()
    streams = [post(port, "/v1/stream", b"{}") for _ in range(4)]  # held open until GO
    assert all(response.fp.readline() == b"event: message_start\n" for response in streams)
    assert len(os.listdir(f"/proc/{started.process.pid}/task")) == 1
    GO.set()
    assert all(b"message_stop" in response.read() for response in streams)


def test_a_half_close_is_passed_on_both_ways(folder):
    path = folder / "echo.sock"
    with serving(UnixRaw(str(path), ReverseEcho)):
        started = Forwarder(path)
        try:
            data = os.urandom(3 * 2**20)
            with socket.create_connection(("127.0.0.1", started.port()), timeout=10) as client:
                client.sendall(data)
                client.shutdown(socket.SHUT_WR)  # the echo answers only once it sees the end
                received = bytearray()
                while chunk := client.recv(65536):
                    received += chunk
            assert bytes(received) == bytes(reversed(data))
        finally:
            started.stop()


def test_a_relay_that_does_not_answer_closes_the_agents_connection(folder):
    path = folder / "dead.sock"
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(str(path))
    listener.close()  # the file stays, nobody listens: connection refused
    started = Forwarder(path)
    try:
        # closed before, while or after the request is written: the client sees one of these
        with pytest.raises((http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError)):
            post(started.port(), "/v1/messages", b"{}").read()
        assert started.process.poll() is None  # one failed connection does not stop it
    finally:
        started.stop()


def test_it_exits_when_the_socket_file_goes_away(forwarder, http_relay):
    started, _ = forwarder
    http_relay.unlink()
    assert started.process.wait(timeout=5) == 0


def test_it_exits_on_sigterm(forwarder):
    started, _ = forwarder
    started.process.send_signal(signal.SIGTERM)
    assert started.process.wait(timeout=5) == 0


def test_it_waits_for_a_socket_that_comes_late_and_gives_up_on_one_that_never_does(folder):
    late, servers = folder / "late.sock", []

    def bring_up() -> None:
        servers.append(UnixHttp(str(late), RelayLike))
        threading.Thread(target=servers[0].serve_forever, daemon=True).start()

    started, timer = Forwarder(late, wait=10), threading.Timer(0.5, bring_up)
    timer.start()
    try:
        port = started.port()
        assert json.loads(post(port, "/v1/messages", b"{}").read())["bytes"] == 2
    finally:
        started.stop()
        timer.join()
        for server in servers:
            server.shutdown()
            server.server_close()
    never = Forwarder(folder / "never.sock", wait=0.3)
    assert never.process.wait(timeout=10) == 2
    assert "no socket at" in never.process.stderr.read()
    never.stop()
