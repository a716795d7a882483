"""What the container's model forwarder adds to a model request: a 2 kB request answered by an echo
over a new connection each time (as Claude Code and Codex open one per request), through the
forwarder's TCP port beside straight to the unix socket it carries to, same run, interleaved.

    python bench/forwarder_overhead.py --rounds 300
"""

from __future__ import annotations

import argparse
import socket
import socketserver
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from impasse.paths import HARNESS

BODY = b"x" * 2048


class Echo(socketserver.BaseRequestHandler):
    def handle(self) -> None:  # to the request's end (the half-close), then it back
        data = bytearray()
        while chunk := self.request.recv(65536):
            data += chunk
        self.request.sendall(data)


class UnixEcho(socketserver.ThreadingMixIn, socketserver.UnixStreamServer):
    daemon_threads = True


def round_trip(connect) -> float:
    started = time.perf_counter()
    with connect() as sock:
        sock.sendall(BODY)
        sock.shutdown(socket.SHUT_WR)
        received = 0
        while chunk := sock.recv(65536):
            received += len(chunk)
    assert received == len(BODY)
    return (time.perf_counter() - started) * 1000


def unix(path: str):
    def connect() -> socket.socket:
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.connect(path)
        return sock
    return connect


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=300)
    parser.add_argument("--forwarder", default=str(HARNESS / "model_forwarder.py"),
                        help="the forwarder script (another version of it, to pair against)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(dir="/tmp", prefix="fwd-bench-") as folder:
        path = str(Path(folder) / "model.sock")
        server = UnixEcho(path, Echo)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        forwarder = subprocess.Popen([sys.executable, "-I", "-S", args.forwarder, "--port", "0",
                                      "--socket", path], stdout=subprocess.PIPE, text=True)
        try:
            port = int(forwarder.stdout.readline().rsplit(":", 1)[1])
            through, direct = [], []
            for _ in range(args.rounds):
                through.append(round_trip(lambda: socket.create_connection(("127.0.0.1", port))))
                direct.append(round_trip(unix(path)))
        finally:
            forwarder.kill()
            forwarder.wait()
            server.shutdown()
            server.server_close()
    for name, times in (("through the forwarder", through), ("straight to the socket", direct)):
        print(f"{name}: median {statistics.median(times):.2f} ms, "
              f"p95 {statistics.quantiles(times, n=20)[-1]:.2f} ms")
    print(f"forwarder adds {statistics.median(through) - statistics.median(direct):.2f} ms at the median")


if __name__ == "__main__":
    main()
