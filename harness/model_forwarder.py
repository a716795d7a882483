"""The container's one way to the model: listens on 127.0.0.1:PORT inside a `--network none`
container and carries each connection, bytes both ways, to a unix socket bind-mounted in from the
host, where impasse's model relay listens. Claude Code and Codex take only an http:// base URL, not
a socket path, so this stands between them.

    python3 model_forwarder.py --port 8765 --socket /impasse-relay/model.sock

It knows nothing of HTTP: a half-close is passed on (the relay sees the end of the request, the
agent the end of a streamed reply). It prints `listening 127.0.0.1:PORT` once it accepts (with
--port 0, the port it was given), and exits when the socket file goes away (the run is over) or on
SIGTERM. Stdlib only, Python 3.11 (Debian bookworm's python3).
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


def pump(source: socket.socket, sink: socket.socket) -> None:
    """One direction until its end; then the end is passed on, and nothing more is sent that way."""
    try:
        while data := source.recv(CHUNK):
            sink.sendall(data)
    except OSError:
        pass  # a reset: the other direction sees it too and ends
    finally:
        with contextlib.suppress(OSError):
            sink.shutdown(socket.SHUT_WR)


def forward(client: socket.socket, socket_path: str) -> None:
    with client:
        upstream = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        with upstream:
            try:
                upstream.connect(socket_path)
            except OSError as err:
                print(f"model_forwarder: cannot reach {socket_path}: {err}", file=sys.stderr, flush=True)
                return  # the agent sees the connection closed, as it would a refused one
            back = threading.Thread(target=pump, args=(upstream, client), daemon=True)
            back.start()
            pump(client, upstream)
            back.join()


def wait_for(socket_path: str, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while not os.path.exists(socket_path):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def serve(port: int, socket_path: str, stop: threading.Event) -> int:
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", port))
    listener.listen(64)
    listener.setblocking(False)
    print(f"listening 127.0.0.1:{listener.getsockname()[1]}", flush=True)
    with listener, selectors.DefaultSelector() as selector:
        selector.register(listener, selectors.EVENT_READ)
        while not stop.is_set() and os.path.exists(socket_path):
            if not selector.select(POLL_SECONDS):
                continue
            try:
                client, _ = listener.accept()
            except BlockingIOError:
                continue
            client.setblocking(True)
            client.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)  # streamed tokens go out at once
            threading.Thread(target=forward, args=(client, socket_path), daemon=True).start()
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
