"""How pi (badlogic/pi-mono's coding agent, and harnesses built on it) reports a tool's result: a
failed call is a result with `isError`; its bash tool, whose status is otherwise never written, ends a
failed command's output with the status line, or says it timed out or was aborted instead."""

from __future__ import annotations

import re

STATUS_LINE = re.compile(r"(?:\A|\n\n)Command exited with code (-?\d+)\s*\Z")
TIMED_OUT = re.compile(r"(?:\A|\n\n)Command timed out after \S+ seconds\s*\Z")
ABORTED = re.compile(r"(?:\A|\n\n)Command aborted\s*\Z")
