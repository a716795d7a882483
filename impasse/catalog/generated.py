"""Generated tasks as data: per project version, `tasks/pypi/<name>-<version>/` holds `baseline.json`
(the tests that pass on the pristine project), `tasks.jsonl` (one task a line: bug patch,
FAIL_TO_PASS, statement, provenance) and `stats.json` (the yield of the run that made them).
PASS_TO_PASS is every baseline test outside FAIL_TO_PASS, so it is stored once per project, not
once per task. A task is applied on top of its project's image when a container starts.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from impasse.catalog.projects import PYPI, RealProject, generated_dir, load_real_projects
from impasse.paths import write_atomic

BASELINE, TASKS_FILE, STATS = "baseline.json", "tasks.jsonl", "stats.json"


@dataclass(frozen=True)
class GeneratedTask:
    id: str
    project: str
    version: str
    patch: str  # bug-introducing, applies with `git apply` at /workspace
    fail_to_pass: tuple[str, ...]
    problem_statement: str
    provenance: dict  # strategy, path, function, line, seed: where the bug is (never shown to the agent)
    baseline: tuple[str, ...] = field(default=(), repr=False, compare=False)

    @property
    def pass_to_pass(self) -> tuple[str, ...]:
        failing = set(self.fail_to_pass)
        return tuple(t for t in self.baseline if t not in failing)

    def to_record(self) -> dict:
        return {"instance_id": self.id, "repo": self.project, "version": self.version, "patch": self.patch,
                "FAIL_TO_PASS": list(self.fail_to_pass), "problem_statement": self.problem_statement,
                "provenance": self.provenance}


@dataclass
class Stats:
    project: str
    version: str
    seed: int
    baseline_tests: int = 0
    baseline_seconds: float = 0.0
    tried: int = 0
    kept: int = 0
    rejected: Counter[str] = field(default_factory=Counter)  # reason -> candidates
    kept_by_strategy: Counter[str] = field(default_factory=Counter)
    tried_by_strategy: Counter[str] = field(default_factory=Counter)
    container_seconds: float = 0.0  # wall time of the test runs, one container, one pytest at a time
    wall_seconds: float = 0.0
    tried_ids: list[str] = field(default_factory=list)  # every candidate judged: a resumed run skips them

    @property
    def kept_per_cpu_minute(self) -> float:
        return round(self.kept / (self.container_seconds / 60), 2) if self.container_seconds else 0.0


def save_baseline(project: RealProject, passed: list[str], seconds: float, root: Path = PYPI) -> None:
    write_atomic(generated_dir(project, root) / BASELINE, json.dumps(
        {"project": project.name, "version": project.version, "seconds": round(seconds, 2),
         "passed": sorted(passed)}, indent=0) + "\n")


def load_baseline(project: RealProject, root: Path = PYPI) -> tuple[str, ...] | None:
    path = generated_dir(project, root) / BASELINE
    return tuple(json.loads(path.read_text())["passed"]) if path.is_file() else None


def write_tasks(project: RealProject, tasks: list[GeneratedTask], root: Path = PYPI) -> Path:
    path = generated_dir(project, root) / TASKS_FILE
    write_atomic(path, "".join(json.dumps(t.to_record()) + "\n" for t in tasks))
    return path


def save_tasks(project: RealProject, tasks: list[GeneratedTask], stats: Stats, root: Path = PYPI) -> None:
    folder = write_tasks(project, tasks, root).parent
    # vars, not asdict: asdict would rebuild each Counter from its (key, count) pairs, counting the pairs
    data = vars(stats) | {"kept_per_cpu_minute": stats.kept_per_cpu_minute}
    write_atomic(folder / STATS, json.dumps(data, indent=1) + "\n")


def load_stats(project: RealProject, root: Path = PYPI) -> Stats | None:
    path = generated_dir(project, root) / STATS
    if not path.is_file():
        return None
    data = json.loads(path.read_text())
    data.pop("kept_per_cpu_minute", None)
    for key in ("rejected", "kept_by_strategy", "tried_by_strategy"):
        data[key] = Counter(data.get(key, {}))
    return Stats(**data)


def drop_tasks(project: RealProject, ids: set[str], reason: str, root: Path = PYPI) -> int:
    """Take tasks out of a project's set (validation in a fresh container refused them), counting
    them as rejected with `reason` in its statistics; returns how many were dropped."""
    tasks = load_project_tasks(project, root)
    kept = [t for t in tasks if t.id not in ids]
    stats = load_stats(project, root) or Stats(project.name, project.version, 0)
    dropped = len(tasks) - len(kept)
    if dropped:
        stats.kept -= dropped
        stats.rejected[reason] += dropped
        for task in tasks:
            if task.id in ids:
                stats.kept_by_strategy[task.provenance.get("strategy", "")] -= 1
        save_tasks(project, kept, stats, root)
    return dropped


def load_project_tasks(project: RealProject, root: Path = PYPI) -> list[GeneratedTask]:
    path = generated_dir(project, root) / TASKS_FILE
    if not path.is_file():
        return []
    baseline = load_baseline(project, root) or ()
    tasks = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            r = json.loads(line)
            tasks.append(GeneratedTask(r["instance_id"], r["repo"], r["version"], r["patch"],
                                       tuple(r["FAIL_TO_PASS"]), r["problem_statement"], r["provenance"],
                                       baseline))
    return tasks


def load_generated(root: Path = PYPI) -> list[GeneratedTask]:
    return [t for p in load_real_projects().values() for t in load_project_tasks(p, root)]


LITE_SIZE = 50
SPLITS = ("lite", "full")


def select_split(tasks: list[GeneratedTask], split: str) -> list[GeneratedTask]:
    """`full`: every generated task. `lite`: about LITE_SIZE of them, stratified by project — taken
    round-robin over the projects, each project's tasks in a fixed order (sorted by id), so the
    split is the same wherever it is computed and grows only when a project's tasks change."""
    if split == "full":
        return list(tasks)
    by_project: dict[str, list[GeneratedTask]] = {}
    for task in sorted(tasks, key=lambda t: t.id):
        by_project.setdefault(task.project, []).append(task)
    chosen: list[GeneratedTask] = []
    queues = [by_project[p] for p in sorted(by_project)]
    depth = 0
    while len(chosen) < LITE_SIZE and any(depth < len(q) for q in queues):
        chosen += [q[depth] for q in queues if depth < len(q)][:LITE_SIZE - len(chosen)]
        depth += 1
    return chosen
