"""One process at a time on this host: an exclusive lock on a file, held for a block."""

from __future__ import annotations

import fcntl
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


@contextmanager
def file_lock(path: Path) -> Iterator[None]:
    """Held until the block ends; a process killed while it holds the lock lets go of it with its
    file descriptors, so a crash never leaves it locked."""
    with path.open("w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)
