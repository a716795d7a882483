"""How GitHub Copilot CLI reports a tool's result: its bash tool ends a command's output with the
shell's id and the command's status, `<shellId: 3 completed with exit code 1>`; a call that failed
outright has `success: false` and an `error` instead of a result.

A command still running when its wait ends is left in a detached shell (`<command with shellId: 0 is
still running after 60 seconds. …>`); `read_bash` (and `write_bash`) with that id return its output so
far under the same trailer, and once it ends `<command with id: 0 exited with exit code 1>`."""

from __future__ import annotations

import re

SHELL_STATUS = re.compile(r"\n?<(?:shellId: \S+ completed|command with id: \S+ exited) with exit code (-?\d+)>\s*\Z")
STILL_RUNNING = re.compile(r"\n?<command with shellId: (\S+) is still running after [^>]*>\s*\Z")
SHELL_READERS = ("read_bash", "write_bash")  # tools that return a detached shell's output
