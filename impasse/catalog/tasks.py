"""Repair tasks in the SWE-smith shape: a project repository, a bug-introducing patch, the gold fix,
FAIL_TO_PASS and PASS_TO_PASS test ids, and what the task needs from its environment.

Layout: `tasks/projects/<project>/{project.yaml, repo/, services/}` holds a project once;
`tasks/<task_id>/{task.yaml, bug.patch, fix.patch}` holds each task built on it.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from pathlib import Path

from impasse.catalog.projects import RealProject
from impasse.catalog.schema import DocumentError, load_document
from impasse.hashing import hash_text, hash_tree
from impasse.paths import TASKS

PROJECTS_DIR = "projects"
TASK_IMAGE_REPO = "impasse-task"  # task images are impasse-task-<task id>:<content hash>
# Files whose pristine copy is restored before grading: the tests and everything that configures them
# (every name pytest reads its configuration from, and the conftest.py it loads).
TEST_CONFIG_FILES = ("conftest.py", "pytest.ini", ".pytest.ini", "pytest.toml", ".pytest.toml", "setup.cfg",
                     "tox.ini", "pyproject.toml")


def test_config_files(test_paths: tuple[str, ...]) -> list[str]:
    """The files that configure a task's tests: the configuration at the root and in any folder
    above a test folder — pytest loads a conftest.py there for every test below it, and takes its
    configuration from the nearest folder above the tests that has a configuration file."""
    above = (f"{parent}/{name}" for path in test_paths for parent in parents(path) for name in TEST_CONFIG_FILES)
    return list(dict.fromkeys([*TEST_CONFIG_FILES, *above]))


def parents(path: str) -> list[str]:
    """`src/pkg/tests` → [`src`, `src/pkg`]: the folders between the root and a test folder."""
    parts = path.strip("/").split("/")[:-1]
    return ["/".join(parts[:i]) for i in range(1, len(parts) + 1)]


@dataclass(frozen=True)
class Service:
    name: str
    kind: str  # local: root process in the task container; sidecar: a second container
    command: str
    port: int
    host: str = "127.0.0.1"
    tls: bool = False

    @property
    def role(self) -> str:
        """What a blocker can take away: a plain service, a TLS endpoint, or a download host."""
        if self.kind == "sidecar":
            return "download"
        return "tls" if self.tls else "service"


@dataclass(frozen=True)
class Project:
    name: str
    root: Path
    description: str
    test_command: str
    secrets: dict[str, str] = field(default_factory=dict)
    services: tuple[Service, ...] = ()

    @property
    def repo(self) -> Path:
        return self.root / "repo"

    @property
    def services_dir(self) -> Path:
        return self.root / "services"


@dataclass(frozen=True)
class Requirements:
    python_packages: tuple[str, ...] = ()
    binaries: tuple[str, ...] = ()
    secrets: tuple[str, ...] = ()
    services: tuple[str, ...] = ()
    commit: bool = False
    writes: bool = False
    memory_mb: int | None = None


@dataclass(frozen=True)
class Task:
    id: str
    root: Path
    project: Project
    summary: str
    problem_statement: str
    fail_to_pass: tuple[str, ...]
    pass_to_pass: tuple[str, ...]
    requires: Requirements
    supports: tuple[str, ...]
    # A generated task stands on a pinned PyPI project's image and is applied when its container
    # starts (infra/overlay.py); a hand-written one has an image of its own with the bug committed.
    real: RealProject | None = None

    @property
    def image_key(self) -> str:
        """What its images are named after: the task, or for a generated task its project version,
        whose condition images every task of that version shares."""
        return self.real.key if self.real else self.id

    @property
    def test_paths(self) -> tuple[str, ...]:
        """The folders holding its tests, put back pristine before grading."""
        return self.real.tests if self.real else ("tests",)

    @property
    def bug_patch(self) -> Path:
        return self.root / "bug.patch"

    @property
    def fix_patch(self) -> Path:
        return self.root / "fix.patch"

    @property
    def tests(self) -> tuple[str, ...]:
        return self.fail_to_pass + self.pass_to_pass

    @property
    def content_hash(self) -> str:
        if self.real:
            return hash_text(self.real.pins_hash, self.bug_patch.read_text(), self.problem_statement,
                             *self.fail_to_pass, *self.pass_to_pass, *self.supports)
        return hash_tree([self.root / "task.yaml", self.bug_patch, self.fix_patch,
                          self.project.root])

    def services(self, role: str | None = None) -> list[Service]:
        wanted = [s for s in self.project.services if s.name in self.requires.services]
        return [s for s in wanted if role is None or s.role == role]

    def conditions(self) -> tuple[str, ...]:
        """Every condition this task runs under: the control first, then its blockers."""
        return ("none", *self.supports)


@functools.cache
def load_project(name: str, tasks_dir: Path = TASKS) -> Project:
    root = tasks_dir / PROJECTS_DIR / name
    data = load_document(root / "project.yaml", "project")
    if not (root / "repo").is_dir():
        raise DocumentError(root / "project.yaml", [f"name: project has no repo/ folder at {root / 'repo'}"])
    services = tuple(Service(**{"host": "127.0.0.1", **s}) for s in data.get("services", []))
    return Project(data["name"], root, data["description"], data["test_command"],
                   dict(data.get("secrets", {})), services)


def load_task(root: Path, tasks_dir: Path = TASKS) -> Task:
    path = root / "task.yaml"
    data = load_document(path, "task")
    try:
        project = load_project(data["project"], tasks_dir)
    except DocumentError as err:
        raise DocumentError(path, [f"project: cannot load project {data['project']!r}: {err}"]) from None
    requires = data.get("requires", {})
    task = Task(id=data["id"], root=root, project=project, summary=data["summary"],
                problem_statement=data["problem_statement"].strip(),
                fail_to_pass=tuple(data["FAIL_TO_PASS"]), pass_to_pass=tuple(data["PASS_TO_PASS"]),
                requires=Requirements(**{k: tuple(v) if isinstance(v, list) else v
                                         for k, v in requires.items()}),
                supports=tuple(data["supports"]))
    problems = consistency_problems(task)
    if problems:
        raise DocumentError(path, problems)
    return task


def consistency_problems(task: Task) -> list[str]:
    """What the schema cannot see: cross-file references and the SWE-smith invariants."""
    problems = []
    if task.id != task.root.name:
        problems.append(f"id: {task.id!r} differs from its folder name {task.root.name!r}")
    for name in ("bug.patch", "fix.patch"):
        if not (task.root / name).is_file():
            problems.append(f"{name}: file missing")
    overlap = set(task.fail_to_pass) & set(task.pass_to_pass)
    if overlap:
        problems.append(f"PASS_TO_PASS: also in FAIL_TO_PASS: {sorted(overlap)}")
    known_services = {s.name for s in task.project.services}
    for i, name in enumerate(task.requires.services):
        if name not in known_services:
            problems.append(f"requires.services[{i}]: project {task.project.name} has no service {name!r}")
    for i, name in enumerate(task.requires.secrets):
        if name not in task.project.secrets:
            problems.append(f"requires.secrets[{i}]: project {task.project.name} holds no secret {name!r}")
    for i, test_id in enumerate(task.tests):
        if not (task.project.repo / test_id.split("::")[0]).is_file():
            problems.append(f"tests[{i}]: {test_id!r} names a file that does not exist")
    if task.bug_patch.is_file() and touches_tests(task.bug_patch.read_text()):
        problems.append("bug.patch: must not change tests or their configuration")
    return problems


def touches_tests(patch: str) -> bool:
    for line in patch.splitlines():
        if line.startswith("+++ ") or line.startswith("--- "):
            path = line[4:].split("\t")[0].removeprefix("a/").removeprefix("b/")
            if path.startswith("tests/") or path.rsplit("/", 1)[-1] in TEST_CONFIG_FILES:
                return True
    return False


def task_dirs(tasks_dir: Path = TASKS) -> list[Path]:
    return sorted(p for p in tasks_dir.iterdir() if (p / "task.yaml").is_file())


def load_tasks(ids: list[str] | None = None, tasks_dir: Path = TASKS) -> list[Task]:
    dirs = task_dirs(tasks_dir)
    if ids:
        known = {d.name: d for d in dirs}
        unknown = [i for i in ids if i not in known]
        if unknown:
            raise KeyError(f"unknown task(s): {', '.join(unknown)}; known: {', '.join(known)}")
        dirs = [known[i] for i in ids]
    return [load_task(d, tasks_dir) for d in dirs]


def load_task_by_id(task_id: str, tasks_dir: Path = TASKS) -> Task:
    return load_tasks([task_id], tasks_dir)[0]
