"""Real projects from PyPI, pinned: each sdist by its sha256, every dependency by its exact version
(`tasks/pypi/projects.yaml`). Procedurally generated tasks (`impasse tasks generate`) stand on them.

This module reads and checks the pins; downloading them and building an image is `infra/projects.py`.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from pathlib import Path

import yaml

from impasse.hashing import file_sha256, hash_text
from impasse.paths import TASKS

PYPI = TASKS / "pypi"
PROJECTS_FILE = PYPI / "projects.yaml"
PIN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*==[A-Za-z0-9.+!-]+$")
SHA256 = re.compile(r"^[0-9a-f]{64}$")
PROJECT_IMAGE_REPO = "impasse-project"  # impasse-project-<name>:<content hash>


class PinError(ValueError):
    """A pin that cannot hold: a malformed entry, or a download whose sha256 differs from the pin."""


@dataclass(frozen=True)
class RealProject:
    name: str
    version: str
    description: str
    sdist_url: str
    sha256: str
    source: tuple[str, ...]  # files and folders the mutations may touch, relative to the sdist's root
    tests: tuple[str, ...]  # what pytest runs
    requires: tuple[str, ...]  # runtime and test dependencies beyond the runner, each name==version
    # Import names of runtime dependencies the code cannot work without: what removed_dependency
    # takes away from the project's tasks.
    runtime: tuple[str, ...] = ()
    runner: tuple[str, ...] = ()
    build: tuple[str, ...] = ()

    @property
    def key(self) -> str:
        return f"{self.name}-{self.version}"

    @property
    def sdist_name(self) -> str:
        return self.sdist_url.rsplit("/", 1)[-1]

    @property
    def import_names(self) -> tuple[str, ...]:
        """The names the project is imported by: each source folder or module's last part."""
        return tuple(dict.fromkeys(s.rstrip("/").rsplit("/", 1)[-1].removesuffix(".py") for s in self.source))

    @property
    def installs(self) -> tuple[str, ...]:
        """What is installed into the image (pip runs from its wheel and stays out)."""
        return tuple(p for p in (*self.runner, *self.requires) if not p.startswith("pip=="))

    @property
    def wheels(self) -> tuple[str, ...]:
        """Everything the wheelhouse holds: the installs, pip and the build backends."""
        return tuple(dict.fromkeys((*self.runner, *self.requires, *self.build)))

    @property
    def pins_hash(self) -> str:
        return hash_text(self.key, self.sha256, *self.wheels)

    @property
    def image_repo(self) -> str:
        return f"{PROJECT_IMAGE_REPO}-{self.name}"


def check_pins(pins: object, where: str) -> tuple[str, ...]:
    if not isinstance(pins, list) or not all(isinstance(p, str) and PIN.match(p) for p in pins):
        raise PinError(f"{where}: every entry must be an exact pin name==version, got {pins!r}")
    return tuple(pins)


def check_modules(names: object, where: str) -> tuple[str, ...]:
    if not isinstance(names, list) or not all(isinstance(n, str) and n.isidentifier() for n in names):
        raise PinError(f"{where}: every entry must be a module's import name, got {names!r}")
    return tuple(names)


def parse_projects(text: str, origin: str = "projects.yaml") -> dict[str, RealProject]:
    data = yaml.safe_load(text) or {}
    runner = check_pins(data.get("runner", []), f"{origin}: runner")
    build = check_pins(data.get("build", []), f"{origin}: build")
    projects = {}
    for i, entry in enumerate(data.get("projects") or []):
        where = f"{origin}: projects[{i}]"
        missing = [k for k in ("name", "version", "sdist", "sha256", "source", "tests") if k not in entry]
        if missing:
            raise PinError(f"{where}: missing {', '.join(missing)}")
        if not SHA256.match(str(entry["sha256"])):
            raise PinError(f"{where}: sha256 must be 64 lowercase hex digits, got {entry['sha256']!r}")
        if not str(entry["sdist"]).startswith("https://") or not str(entry["sdist"]).endswith(".tar.gz"):
            raise PinError(f"{where}: sdist must be an https URL of a .tar.gz, got {entry['sdist']!r}")
        if entry["name"] in projects:
            raise PinError(f"{where}: project {entry['name']!r} is pinned twice")
        projects[entry["name"]] = RealProject(
            name=entry["name"], version=str(entry["version"]), description=entry.get("description", ""),
            sdist_url=entry["sdist"], sha256=entry["sha256"], source=tuple(entry["source"]),
            tests=tuple(entry["tests"]), requires=check_pins(entry.get("requires", []), f"{where}: requires"),
            runtime=check_modules(entry.get("runtime", []), f"{where}: runtime"), runner=runner, build=build)
    return projects


@functools.cache
def load_real_projects(path: Path = PROJECTS_FILE) -> dict[str, RealProject]:
    if not path.is_file():
        return {}
    return parse_projects(path.read_text(), str(path))


def get_real_project(name: str, path: Path = PROJECTS_FILE) -> RealProject:
    projects = load_real_projects(path)
    if name not in projects:
        raise KeyError(f"unknown project {name!r}; pinned: {', '.join(sorted(projects))}")
    return projects[name]


def verify_sha256(path: Path, expected: str, what: str) -> None:
    actual = file_sha256(path)
    if actual != expected:
        raise PinError(f"{what}: sha256 mismatch: pinned {expected}, downloaded {actual}. "
                       "The file on the index is not the pinned one; nothing was kept.")


def generated_dir(project: RealProject, root: Path = PYPI) -> Path:
    """Where a project's generated tasks and its baseline live: tasks/pypi/<name>-<version>/."""
    return root / project.key
