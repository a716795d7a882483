"""Window summaries in sqlite, one table per pipeline run label."""

from __future__ import annotations

import re
import sqlite3
from contextlib import closing
from pathlib import Path

from logpipe.window import WindowStats

LABEL = re.compile(r"^[a-z][a-z0-9_]{0,40}$")


class SummaryStore:
    def __init__(self, path: Path) -> None:
        self.path = Path(path)

    def write(self, label: str, stats: list[WindowStats]) -> int:
        if not LABEL.match(label):
            raise ValueError(f"bad label {label!r}")
        with closing(sqlite3.connect(self.path)) as db, db:
            db.execute(f"CREATE TABLE IF NOT EXISTS {label} "
                       "(start TEXT PRIMARY KEY, events INTEGER, distinct_events INTEGER, levels TEXT)")
            db.executemany(f"INSERT OR REPLACE INTO {label} VALUES (?,?,?,?)",
                           [s.as_row() for s in stats])
        return len(stats)

    def read(self, label: str) -> list[tuple]:
        if not LABEL.match(label):
            raise ValueError(f"bad label {label!r}")
        with closing(sqlite3.connect(self.path)) as db:
            return db.execute(f"SELECT * FROM {label} ORDER BY start").fetchall()

    def totals(self, label: str) -> tuple[int, int]:
        rows = self.read(label)
        return sum(r[1] for r in rows), sum(r[2] for r in rows)
