"""What every aggregate summarises with: quartiles, and the 95% percentile bootstrap over tasks (the
cluster: runs of one task are not independent), seeded so the same runs give the same intervals."""

from __future__ import annotations

import random
import statistics
from collections import defaultdict
from collections.abc import Callable
from typing import Any

BOOTSTRAP = 1000  # resamples


def quartiles(values: list) -> dict | None:
    present = sorted(v for v in values if v is not None)
    if not present:
        return None
    if len(present) == 1:
        return {"median": present[0], "q1": present[0], "q3": present[0]}
    q1, median, q3 = statistics.quantiles(present, n=4, method="inclusive")
    return {"median": median, "q1": q1, "q3": q3}


def task_of(run: Any) -> str:
    return run.row.task


def bootstrap(runs: list[Any], statistic: Callable[[list[Any]], float | None], seed: int = 0,
              cluster: Callable[[Any], str] = task_of) -> list[float] | None:
    """95% interval of `statistic` over runs (by default anything with `row.task`), resampling their
    clusters (tasks) with replacement; a resample in which the statistic has no denominator is left out."""
    if statistic(runs) is None:
        return None
    by_task: dict[str, list] = defaultdict(list)
    for run in runs:
        by_task[cluster(run)].append(run)
    tasks = sorted(by_task)
    rng = random.Random(seed)
    values = []
    for _ in range(BOOTSTRAP):
        value = statistic([r for t in rng.choices(tasks, k=len(tasks)) for r in by_task[t]])
        if value is not None:
            values.append(value)
    values.sort()
    return [round(values[int(0.025 * len(values))], 4), round(values[int(0.975 * len(values)) - 1], 4)]
