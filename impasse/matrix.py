"""Matrix runs: models × conditions × tasks × seeds, in parallel, resumable and kill-safe.

A run id is a deterministic function of what defines the run, so a restarted matrix finds its
finished runs (they have result.json) and skips them, and redoes from scratch any run that was cut
short. Leftover containers of dead impasse processes are reaped on start. Images are built before
the workers start, so workers never race to build the same layer."""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field, replace
from pathlib import Path

import docker
import yaml

from impasse.cards import load_cards
from impasse.conditions import ensure_condition_image, make_condition
from impasse.runner import RunSpec, execute, resolve, run_id_for
from impasse.sandbox import reap_stale
from impasse.tasks import load_tasks
from impasse.trajectory import RunDir


class MatrixError(ValueError):
    pass


@dataclass
class MatrixSpec:
    models: list[str]
    conditions: list[str] | str = "all"
    tasks: list[str] | str = "all"
    seeds: int = 1
    budget: int = 80
    workers: int = 2
    out: Path = Path("runs")
    base_url: str | None = None


@dataclass
class Planned:
    spec: RunSpec
    run_id: str

    @property
    def finished(self) -> bool:
        return RunDir(self.spec.out / self.run_id).finished


@dataclass
class Progress:
    total: int
    skipped: int = 0
    done: int = 0
    failed: int = 0
    running: int = 0
    outcomes: dict[str, int] = field(default_factory=dict)


def split(value) -> list[str] | str:
    if isinstance(value, list):
        return value
    return "all" if value in (None, "all") else [v.strip() for v in str(value).split(",") if v.strip()]


def load_matrix_file(path: Path) -> MatrixSpec:
    try:
        data = yaml.safe_load(path.read_text()) or {}
    except (OSError, yaml.YAMLError) as err:
        raise MatrixError(f"{path}: {err}") from None
    if not isinstance(data, dict) or not data.get("models"):
        raise MatrixError(f"{path}: needs at least `models:` (a list of model specs)")
    known = {"models", "conditions", "tasks", "seeds", "budget", "workers", "out", "base_url"}
    unknown = set(data) - known
    if unknown:
        raise MatrixError(f"{path}: unknown keys {sorted(unknown)}; known: {sorted(known)}")
    return MatrixSpec(models=split(data["models"]), conditions=split(data.get("conditions", "all")),
                      tasks=split(data.get("tasks", "all")), seeds=int(data.get("seeds", 1)),
                      budget=int(data.get("budget", 80)), workers=int(data.get("workers", 2)),
                      out=Path(data.get("out", "runs")), base_url=data.get("base_url"))


def plan(matrix: MatrixSpec) -> list[Planned]:
    """Every (model, task, condition, seed) the tasks support; `none` always, for every task."""
    cards = load_cards()
    wanted = set(cards) if matrix.conditions == "all" else set(matrix.conditions) | {"none"}
    unknown = wanted - set(cards)
    if unknown:
        raise MatrixError(f"unknown condition(s): {', '.join(sorted(unknown))}")
    try:
        tasks = load_tasks(None if matrix.tasks == "all" else matrix.tasks)
    except KeyError as err:
        raise MatrixError(str(err).strip("'\"")) from None
    planned = []
    for model in matrix.models:
        for task in tasks:
            for condition in task.conditions():
                if condition not in wanted:
                    continue
                for seed in range(matrix.seeds):
                    spec = RunSpec(model, condition, task.id, seed, matrix.budget, matrix.out, matrix.base_url)
                    planned.append(Planned(spec, run_id_for(spec, make_condition(task, cards[condition]))))
    return planned


def prepare_images(api: docker.DockerClient, planned: list[Planned], log) -> None:
    seen = set()
    for item in planned:
        key = (item.spec.task, item.spec.condition)
        if key not in seen:
            seen.add(key)
            ensure_condition_image(api, resolve(item.spec), log)


def run_matrix(api: docker.DockerClient, matrix: MatrixSpec, on_update: Callable[[Progress, str], None],
               log=lambda m: None) -> Progress:
    reap_stale(api)
    planned = plan(matrix)
    todo = [p for p in planned if not p.finished]
    progress = Progress(total=len(planned), skipped=len(planned) - len(todo))
    on_update(progress, "planned")
    prepare_images(api, todo, log)
    lock = threading.Lock()

    def one(item: Planned) -> str:
        with lock:
            progress.running += 1
            on_update(progress, item.run_id)
        try:
            return execute(api, replace(item.spec)).outcome
        finally:
            with lock:
                progress.running -= 1

    with ThreadPoolExecutor(max_workers=max(1, matrix.workers)) as pool:
        futures = {pool.submit(one, item): item for item in todo}
        for future in as_completed(futures):
            with lock:
                try:
                    outcome = future.result()
                    progress.done += 1
                    progress.outcomes[outcome] = progress.outcomes.get(outcome, 0) + 1
                except Exception as err:  # one broken run must not stop the matrix; it is redone next time
                    progress.failed += 1
                    log(f"{futures[future].run_id} failed: {type(err).__name__}: {err}")
                on_update(progress, futures[future].run_id)
    return progress

