"""The container's one way to the model: listens on 127.0.0.1:PORT inside a `--network none`
container and carries each connection, bytes both ways, to a unix socket bind-mounted in from the
host, where impasse's model relay listens. Claude Code and Codex take only an http:// base URL, not
a socket path, so this stands between them.

    python3 model_forwarder.py --port 8765 --socket /impasse-relay/model.sock

It knows nothing of HTTP: a half-close is passed on (the relay sees the end of the request, the
agent the end of a streamed reply). It prints `listening 127.0.0.1:PORT` once it accepts (with
--port 0, the port it was given), and exits when the socket file goes away (the run is over) or on
SIGTERM. Stdlib only, Python 3.11 (Debian bookworm's python3).

One thread carries every connection. It must start nothing while it runs: under flaky_sandbox the
container's process table is held full while the agent carries out a step, and the agent's next
model request — the one that ends the hold — comes through here.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import selectors
import signal
import socket
import sys
import threading
import time

CHUNK = 64 * 1024
POLL_SECONDS = 0.25  # how often the socket file's presence and a stop are checked
WAIT_FOR_SOCKET_SECONDS = 10.0


class Direction:
    """Bytes from one socket to the other: read while there is room, written as the sink takes them;
    once the source has ended and all is written, the end is passed on."""

    def __init__(self, source: socket.socket, sink: socket.socket) -> None:
        self.source, self.sink = source, sink
        self.pending = bytearray()
        self.ended = False  # the source sent its end
        self.closed = False  # the end was passed on

    def read(self) -> None:
        try:
            data = self.source.recv(CHUNK)
        except BlockingIOError:
            return
        except OSError:
            data = b""  # a reset: the other direction sees it too and ends
        if data:
            self.pending += data
        else:
            self.ended = True
        self.write()

    def write(self) -> None:
        try:
            while self.pending:
                self.pending = self.pending[self.sink.send(self.pending):]
        except BlockingIOError:
            return
        except OSError:
            self.pending.clear()
            self.ended = True
        if self.ended and not self.pending and not self.closed:
            self.closed = True
            with contextlib.suppress(OSError):
                self.sink.shutdown(socket.SHUT_WR)

    @property
    def wants_read(self) -> bool:
        return not self.ended and len(self.pending) < CHUNK

    @property
    def wants_write(self) -> bool:
        return bool(self.pending)


class Pair:
    """One agent connection and its connection to the relay."""

    def __init__(self, client: socket.socket, upstream: socket.socket) -> None:
        self.client, self.upstream = client, upstream
        self.up, self.down = Direction(client, upstream), Direction(upstream, client)

    @property
    def done(self) -> bool:
        return self.up.closed and self.down.closed

    def directions(self, sock: socket.socket) -> tuple[Direction, Direction]:
        """The direction that reads from this socket, and the one that writes to it."""
        return (self.up, self.down) if sock is self.client else (self.down, self.up)

    def events(self, sock: socket.socket) -> int:
        """What to wait for on one of the two sockets."""
        reading, writing = self.directions(sock)
        return (selectors.EVENT_READ if reading.wants_read else 0) | \
               (selectors.EVENT_WRITE if writing.wants_write else 0)

    def ready(self, sock: socket.socket, mask: int) -> None:
        reading, writing = self.directions(sock)
        if mask & selectors.EVENT_WRITE:
            writing.write()
        if mask & selectors.EVENT_READ:
            reading.read()

    def close(self) -> None:
        self.client.close()
        self.upstream.close()


def connect(client: socket.socket, socket_path: str) -> Pair | None:
    upstream = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        upstream.connect(socket_path)
    except OSError as err:
        print(f"model_forwarder: cannot reach {socket_path}: {err}", file=sys.stderr, flush=True)
        upstream.close()
        client.close()  # the agent sees the connection closed, as it would a refused one
        return None
    client.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)  # streamed tokens go out at once
    for sock in (client, upstream):
        sock.setblocking(False)
    return Pair(client, upstream)


def wait_for(socket_path: str, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while not os.path.exists(socket_path):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


class Forwarder:
    def __init__(self, listener: socket.socket, socket_path: str) -> None:
        self.listener, self.socket_path = listener, socket_path
        self.selector = selectors.DefaultSelector()
        self.selector.register(listener, selectors.EVENT_READ)
        self.pairs: set[Pair] = set()

    def turn(self) -> None:
        for key, mask in self.selector.select(POLL_SECONDS):
            if key.fileobj is self.listener:
                self.accept()
            elif key.data in self.pairs:
                key.data.ready(key.fileobj, mask)
        self.rearm()

    def accept(self) -> None:
        try:
            client, _ = self.listener.accept()
        except BlockingIOError:
            return
        pair = connect(client, self.socket_path)
        if pair:
            self.pairs.add(pair)
            for sock in (pair.client, pair.upstream):
                self.selector.register(sock, pair.events(sock), pair)

    def rearm(self) -> None:
        """Each socket waits for what its pair can do now; a pair whose both ends are passed on is closed."""
        for pair in list(self.pairs):
            for sock in (pair.client, pair.upstream):
                events = 0 if pair.done else pair.events(sock)
                registered = sock in self.selector.get_map()
                if events and registered:
                    self.selector.modify(sock, events, pair)
                elif events:
                    self.selector.register(sock, events, pair)
                elif registered:  # nothing to wait for on it until the other side moves
                    self.selector.unregister(sock)
            if pair.done:
                self.pairs.discard(pair)
                pair.close()

    def close(self) -> None:
        for pair in self.pairs:
            pair.close()
        self.selector.close()


def serve(port: int, socket_path: str, stop: threading.Event) -> int:
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", port))
    listener.listen(64)
    listener.setblocking(False)
    print(f"listening 127.0.0.1:{listener.getsockname()[1]}", flush=True)
    with listener:
        forwarder = Forwarder(listener, socket_path)
        try:
            while not stop.is_set() and os.path.exists(socket_path):
                forwarder.turn()
        finally:
            forwarder.close()
    return 0
def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--port", type=int, required=True, help="the port on 127.0.0.1 (0: any free one)")
    parser.add_argument("--socket", required=True, help="the relay's unix socket")
    parser.add_argument("--wait", type=float, default=WAIT_FOR_SOCKET_SECONDS,
                        help="seconds to wait for the socket to appear at start")
    args = parser.parse_args(argv)
    if not wait_for(args.socket, args.wait):
        print(f"model_forwarder: no socket at {args.socket} after {args.wait:g}s", file=sys.stderr)
        return 2
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    try:
        return serve(args.port, args.socket, stop)
    except KeyboardInterrupt:
        return 0


if __name__ == "__main__":
    sys.exit(main())
