"""How Continue reports a terminal command's status: not in the tool message the model reads, but in
the call's state beside it, as its terminal panel shows it (`Command completed`, `Command failed with
exit code 1`); a call the human canceled has no result at all."""

from __future__ import annotations

import re

FAILED = re.compile(r"\bfailed with exit code (-?\d+)", re.I)
COMPLETED = re.compile(r"\A\s*Command completed\b", re.I)


def terminal_status(status: str) -> int | None:
    """The exit code a terminal status says: its number when it failed, 0 when it completed, else none
    (still running, or a status this reader does not know)."""
    if found := FAILED.search(status):
        return int(found.group(1))
    return 0 if COMPLETED.match(status) else None
