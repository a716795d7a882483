"""An exec's stream read without losing its first bytes (infra/piped.py): a local server speaking the
engine's exec-start protocol (101, then the multiplexed frames) writes the headers and the first
frames in one write, as a busy engine's do arrive. docker-py's own reader skips what the response's
buffered reader took in with the headers; `frames` and `attach` keep it."""

from __future__ import annotations

import socket
import tempfile
import threading
from pathlib import Path

import docker
import pytest

from impasse.infra.piped import HEADER, STDERR, STDOUT, Demux, attach, frames

FRAMES = HEADER.pack(STDOUT, 6) + b"first\n" + HEADER.pack(STDERR, 5) + b"oops\n" + HEADER.pack(STDOUT, 5) + b"last\n"
RESPONSE = (b"HTTP/1.1 101 UPGRADED\r\nContent-Type: application/vnd.docker.raw-stream\r\n"
            b"Connection: Upgrade\r\nUpgrade: tcp\r\n\r\n") + FRAMES


@pytest.fixture
def engine():
    """One exec start answered: headers and every frame in a single write, then the stream's end."""
    folder = Path(tempfile.mkdtemp(prefix="es"))
    path = folder / "engine.sock"
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(str(path))
    server.listen(4)

    def answer() -> None:
        while True:
            try:
                conn, _ = server.accept()
            except OSError:
                return
            with conn:
                request = b""
                while b"\r\n\r\n" not in request:
                    request += conn.recv(65536)
                head, _, body = request.partition(b"\r\n\r\n")
                length = int(next((line.split(b":")[1] for line in head.split(b"\r\n")
                                   if line.lower().startswith(b"content-length")), b"0"))
                while len(body) < length:
                    body += conn.recv(65536)
                conn.sendall(RESPONSE)
                conn.shutdown(socket.SHUT_WR)

    threading.Thread(target=answer, daemon=True).start()
    yield docker.APIClient(base_url=f"unix://{path}", version="1.41")
    server.close()


def test_every_frame_is_read_when_the_first_came_with_the_headers(engine):
    assert list(frames(engine, "x")) == [(STDOUT, b"first\n"), (STDERR, b"oops\n"), (STDOUT, b"last\n")]


def test_an_attached_socket_gets_the_bytes_already_taken_in_first(engine):
    attached = attach(engine, "x")
    demux, data = Demux(), bytearray()
    data += demux.feed(attached.early)
    while chunk := attached.sock.recv(65536):
        data += demux.feed(chunk)
    attached.close()
    assert bytes(data) == b"first\noops\nlast\n"
