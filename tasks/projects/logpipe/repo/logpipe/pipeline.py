"""The whole run: jq pre-filter → parse → windows → sqlite summary."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path

from logpipe.jq import build_program, run_jq
from logpipe.records import parse_lines
from logpipe.store import SummaryStore
from logpipe.window import windows


@dataclass(frozen=True)
class RunSummary:
    kept: int
    malformed: int
    windows: int
    distinct: int


def run(source: Path, store_path: Path, label: str, min_level: str = "info",
        services: list[str] | None = None, width: timedelta = timedelta(minutes=5)) -> RunSummary:
    lines = run_jq(build_program(min_level, services), source)
    events, malformed = parse_lines(lines)
    stats = windows(events, width)
    SummaryStore(store_path).write(label, stats)
    return RunSummary(len(events), malformed, len(stats), sum(s.distinct for s in stats))
