"""How GitHub Copilot CLI reports a tool's result: its bash tool ends a command's output with the
shell's id and the command's status, `<shellId: 3 completed with exit code 1>`; a call that failed
outright has `success: false` and an `error` instead of a result."""

from __future__ import annotations

import re

SHELL_STATUS = re.compile(r"\n?<shellId: \S+ completed with exit code (-?\d+)>\s*\Z")
