"""The persistent exec channel: started once per episode inside the container, as the agent user,
attached to the harness over the exec's stdin/stdout. Each request (one JSON line on stdin) runs as a
fresh `bash -c` child in its own process group, in the requested directory, with a timeout that
kills the whole group; the reply (one JSON line on stdout) carries the output, already cut to its
head and tail, the number of bytes elided, the exit code and whether it timed out. Output bytes are
decoded with replacement, exactly as on the plain exec path.

An edit_file request (`edit`: its base64 arguments) runs edit_file.py's own code in a forked child
of this process instead of a new `python3`: the same user, directory, kernel errors and output, for
about a tenth of the CPU (an interpreter's start-up is most of what an edit costs)."""

import contextlib
import importlib.util
import json
import os
import signal
import subprocess
import sys
import threading
import time

HEAD = 10_000
TAIL = 10_000
EDIT_SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "edit_file.py")


def load_edit_tool():
    spec = importlib.util.spec_from_file_location("edit_file", EDIT_SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


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


@contextlib.contextmanager
def deadline(group, seconds):
    """Kills the process group when the time is up; yields the event that says it did."""
    timed_out = threading.Event()

    def kill_group():
        timed_out.set()
        with contextlib.suppress(ProcessLookupError):  # the group may already be gone
            os.killpg(group, signal.SIGKILL)
    timer = threading.Timer(seconds, kill_group)
    timer.start()
    try:
        yield timed_out
    finally:
        timer.cancel()


def drain(fd):
    """Everything a child writes until every writer has closed, cut to head and tail."""
    output = Bounded()
    while chunk := os.read(fd, 65536):
        output.feed(chunk)
    return output


def reply(request, started, output, code, timed_out):
    if timed_out.is_set():
        code = 124
    elif code < 0:
        code = 128 - code  # killed by a signal, reported as the shell would (e.g. 137 for SIGKILL)
    return {"id": request.get("id"), "output": output.text(), "exit_code": code,
            "truncated_bytes": output.dropped, "timed_out": timed_out.is_set(),
            "duration": time.monotonic() - started}


def run(request):
    started = time.monotonic()
    child = subprocess.Popen(["bash", "-c", request["command"]], cwd=request.get("cwd", "/workspace"),
                             stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                             start_new_session=True, env={**os.environ, **request.get("env", {})})
    with deadline(child.pid, request.get("timeout", 120)) as timed_out:
        output = drain(child.stdout.fileno())
        code = child.wait()
    return reply(request, started, output, code, timed_out)


def edit(request, tool):
    """edit_file.py's main in a forked child, as `python3 edit_file.py PAYLOAD` would run it."""
    started = time.monotonic()
    readable, writable = os.pipe()
    pid = os.fork()
    if pid == 0:
        os._exit(edit_child(request, tool, readable, writable))
    os.close(writable)
    with deadline(pid, request.get("timeout", 120)) as timed_out:
        output = drain(readable)
        code = os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])
    os.close(readable)
    return reply(request, started, output, code, timed_out)


def edit_child(request, tool, readable, writable):
    code = 1
    try:
        os.setsid()
        os.close(readable)
        os.dup2(writable, 1)
        os.dup2(writable, 2)
        os.chdir(request.get("cwd", "/workspace"))
        # The child's stdout until it exits: print() in the tool writes here, as in its own process.
        sys.stdout = open(1, "w", encoding=sys.stdout.encoding, errors=sys.stdout.errors, closefd=False)  # noqa: SIM115
        sys.argv = [EDIT_SCRIPT, request["edit"]]
        code = tool.main()
    except BaseException:  # what the interpreter would print for an uncaught error
        import traceback
        traceback.print_exc()
    finally:
        with contextlib.suppress(Exception):
            sys.stdout.flush()
    return code


def main():
    tool = load_edit_tool()
    out = sys.stdout
    out.write(json.dumps({"ready": os.getpid()}) + "\n")
    out.flush()
    for line in sys.stdin:
        if not line.endswith("\n"):  # cut off by a failed write: the harness sends it again elsewhere
            break
        if not line.strip():
            continue
        try:
            request = json.loads(line)
            answer = edit(request, tool) if "edit" in request else run(request)
        except Exception as err:  # a request the channel could not carry out is reported, not fatal
            answer = {"error": f"{type(err).__name__}: {err}"}
        out.write(json.dumps(answer) + "\n")
        out.flush()


if __name__ == "__main__":
    main()
