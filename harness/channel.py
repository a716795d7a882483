"""The persistent exec channel: started once per episode inside the container, as the agent user,
attached to the harness over the exec's stdin/stdout. Each request (one JSON line on stdin) runs as a
fresh `bash -c` child in its own process group, in the requested directory, with a timeout that
kills the whole group; the reply (one JSON line on stdout) carries the output, already cut to its
head and tail, the number of bytes elided, the exit code and whether it timed out. Output bytes are
decoded with replacement, exactly as on the plain exec path."""

import contextlib
import json
import os
import signal
import subprocess
import sys
import threading
import time

HEAD = 10_000
TAIL = 10_000


class Bounded:
    def __init__(self):
        self.head = bytearray()
        self.tail = bytearray()
        self.dropped = 0

    def feed(self, chunk):
        room = HEAD - len(self.head)
        if room > 0:
            self.head += chunk[:room]
            chunk = chunk[room:]
        if chunk:
            self.tail += chunk
            overflow = len(self.tail) - TAIL
            if overflow > 0:
                del self.tail[:overflow]
                self.dropped += overflow

    def text(self):
        head = self.head.decode("utf-8", errors="replace")
        tail = self.tail.decode("utf-8", errors="replace")
        if not self.dropped:
            return head + tail
        return f"{head}\n[... {self.dropped} bytes of output elided ...]\n{tail}"


def run(request):
    started = time.monotonic()
    child = subprocess.Popen(["bash", "-c", request["command"]], cwd=request.get("cwd", "/workspace"),
                             stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                             start_new_session=True, env={**os.environ, **request.get("env", {})})
    output = Bounded()
    timed_out = threading.Event()

    def kill_group():
        timed_out.set()
        with contextlib.suppress(ProcessLookupError):  # the group may already be gone
            os.killpg(child.pid, signal.SIGKILL)
    timer = threading.Timer(request.get("timeout", 120), kill_group)
    timer.start()
    try:
        while True:
            chunk = child.stdout.read1(65536)
            if not chunk:
                break
            output.feed(chunk)
        code = child.wait()
    finally:
        timer.cancel()
    if timed_out.is_set():
        code = 124
    elif code < 0:
        code = 128 - code  # killed by a signal, reported as the shell would (e.g. 137 for SIGKILL)
    return {"id": request.get("id"), "output": output.text(), "exit_code": code,
            "truncated_bytes": output.dropped, "timed_out": timed_out.is_set(),
            "duration": time.monotonic() - started}


def main():
    out = sys.stdout
    out.write(json.dumps({"ready": os.getpid()}) + "\n")
    out.flush()
    for line in sys.stdin:
        if not line.strip():
            continue
        try:
            reply = run(json.loads(line))
        except Exception as err:  # a request the channel could not carry out is reported, not fatal
            reply = {"error": f"{type(err).__name__}: {err}"}
        out.write(json.dumps(reply) + "\n")
        out.flush()


if __name__ == "__main__":
    main()
