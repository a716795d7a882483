"""Runs made once for a whole test session, whichever xdist worker asks for them first. A module's
tests read the same episodes; under `--dist worksteal` those tests are spread over the workers, and a
cache of the worker's own would run an episode again on every worker that meets one of its tests.
The first to ask runs it under a lock named for it and files its record; the others wait on the lock
and read the record."""

from __future__ import annotations

import dataclasses
import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Generic, TypeVar

from impasse.locks import file_lock

T = TypeVar("T")


def session_folder(tmp_path_factory, name: str) -> Path:
    """A folder every worker of this session shares (each worker's base folder sits in the session's),
    and no other session on the machine: a suite beside this one has folders of its own."""
    base = tmp_path_factory.getbasetemp()
    folder = (base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base) / f"shared-{name}"
    folder.mkdir(parents=True, exist_ok=True)
    return folder


class SharedRuns(Generic[T]):
    """`make(*key)` gives a dataclass whose fields are JSON values, or a `path`; a key is made at most
    once in the session. A make that raises files nothing: the next to ask tries again."""

    def __init__(self, folder: Path, make: Callable[..., T], kind: type[T]) -> None:
        self.folder, self.make, self.kind, self.memo = folder, make, kind, {}

    def get(self, *key) -> T:
        if key not in self.memo:
            self.memo[key] = self.made(key)
        return self.memo[key]

    def made(self, key: tuple) -> T:
        name = "-".join(str(part) for part in key)
        record = self.folder / f"{name}.json"
        with file_lock(self.folder / f"{name}.lock"):
            if record.is_file():
                fields = json.loads(record.read_text())
                return self.kind(**{**fields, "path": Path(fields["path"])})
            value = self.make(*key)
            fields = {**dataclasses.asdict(value), "path": str(value.path)}
            partial = record.with_suffix(".partial")
            partial.write_text(json.dumps(fields))
            partial.replace(record)
            return value
