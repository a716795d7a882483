"""A real project on this host and as an image. `fetch` downloads its pinned sdist (sha256 checked)
and a wheelhouse of its pinned dependencies on the host, where PyPI's certificates verify; the
image (`project.Dockerfile` on the base) installs from that wheelhouse with the network off.

Every download goes to a private temporary folder first and is moved into place only once complete
and checked, so an interrupted or rejected fetch leaves nothing half-written in the cache.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import urllib.request
from dataclasses import dataclass
from pathlib import Path

import docker

from impasse.catalog.projects import PYPI, PinError, RealProject, verify_sha256
from impasse.hashing import file_sha256
from impasse.infra import images
from impasse.infra.images import Layer, Log
from impasse.paths import DOCKERFILES, user_cache, write_atomic

CACHE = Path(os.environ.get("IMPASSE_PYPI_CACHE") or user_cache("pypi"))
WHEELS_LOCK = PYPI / "wheels.lock"  # every wheelhouse file: name and sha256
TARGET = ("--python-version", "3.11", "--implementation", "cp", "--platform", "manylinux2014_x86_64",
          "--platform", "any")  # the base image's Debian bookworm python3


@dataclass(frozen=True)
class Fetched:
    project: RealProject
    sdist: Path
    wheelhouse: Path
    source: Path  # the unpacked sdist: what the image's /workspace holds and the mutations read


def download(url: str, dest: Path) -> None:
    with urllib.request.urlopen(url, timeout=120) as response, dest.open("wb") as out:
        shutil.copyfileobj(response, out)


def fetch_sdist(project: RealProject, cache: Path) -> Path:
    final = cache / "sdists" / project.sdist_name
    if final.is_file() and file_sha256(final) == project.sha256:
        return final
    final.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=final.parent, prefix=".fetch-") as tmp:
        partial = Path(tmp) / project.sdist_name
        download(project.sdist_url, partial)
        verify_sha256(partial, project.sha256, f"{project.key} ({project.sdist_url})")
        os.replace(partial, final)
    return final


def fetch_wheelhouse(project: RealProject, cache: Path, lock: Path = WHEELS_LOCK) -> Path:
    """Exactly the pinned wheels (--no-deps: the pins are the whole environment), for the image's
    interpreter rather than the host's."""
    final = cache / "wheelhouse" / f"{project.key}-{project.pins_hash}"
    if final.is_dir():
        return final
    final.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=final.parent, prefix=".fetch-") as tmp:
        staging = Path(tmp) / "wheels"
        for group in distinct_names(project.wheels):  # pip takes one version of a name per call
            argv = [sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--only-binary=:all:",
                    "--disable-pip-version-check", *TARGET, "-d", str(staging), *group]
            done = subprocess.run(argv, capture_output=True, text=True)
            if done.returncode:
                raise PinError(f"{project.key}: pip download of its pins failed:\n{done.stderr.strip()[-1500:]}")
        missing = [p for p in project.wheels if not any(wheel_matches(w.name, p) for w in staging.iterdir())]
        if missing:
            raise PinError(f"{project.key}: the wheelhouse lacks {', '.join(missing)}")
        check_wheels(project, staging, lock)
        place_folder(staging, final)
    return final


def check_wheels(project: RealProject, staging: Path, lock: Path) -> None:
    """Every wheel is the one locked by its sha256 (tasks/pypi/wheels.lock), like the sdist: an index
    that serves other bytes under a pinned name and version is refused, and nothing is kept. A
    wheel the lock does not know yet is added to it (`git diff` shows it for review)."""
    locked = read_lock(lock)
    changed = False
    for wheel in sorted(staging.iterdir()):
        digest = file_sha256(wheel)
        if wheel.name not in locked:
            locked[wheel.name], changed = digest, True
        elif locked[wheel.name] != digest:
            raise PinError(f"{project.key}: {wheel.name}: sha256 mismatch: locked {locked[wheel.name]}, "
                           f"downloaded {digest}. The file on the index is not the locked one; nothing was kept.")
    if changed:
        write_atomic(lock, "".join(f"{name} {digest}\n" for name, digest in sorted(locked.items())))


def read_lock(lock: Path) -> dict[str, str]:
    if not lock.is_file():
        return {}
    return dict(line.split() for line in lock.read_text().splitlines() if line.strip() and not line.startswith("#"))


def place_folder(ready: Path, final: Path) -> None:
    """Move a finished folder into place; another process that got there first (parallel test
    workers fetch the same project) leaves its identical copy, and ours is dropped with the temp."""
    try:
        os.replace(ready, final)
    except OSError:
        if not final.is_dir():
            raise


def distinct_names(pins: tuple[str, ...]) -> list[list[str]]:
    groups: list[list[str]] = []
    for pin in pins:
        name = pin.split("==")[0].lower()
        group = next((g for g in groups if name not in {p.split("==")[0].lower() for p in g}), None)
        if group is None:
            groups.append(group := [])
        group.append(pin)
    return groups


def wheel_matches(filename: str, pin: str) -> bool:
    name, version = pin.split("==")
    norm = lambda s: s.lower().replace("-", "_").replace(".", "_")  # noqa: E731
    parts = filename.split("-")
    return len(parts) > 2 and norm(parts[0]) == norm(name) and parts[1] == version


def unpack(project: RealProject, sdist: Path, cache: Path) -> Path:
    final = cache / "src" / f"{project.key}-{project.sha256[:12]}"
    if final.is_dir():
        return final
    final.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=final.parent, prefix=".unpack-") as tmp:
        with tarfile.open(sdist) as tar:
            tar.extractall(tmp, filter="data")
        (top,) = [p for p in Path(tmp).iterdir() if p.is_dir()]
        missing = [t for t in project.tests if not (top / t).exists()]
        if missing:
            raise PinError(f"{project.key}: the sdist holds no {', '.join(missing)} (its test suite)")
        place_folder(top, final)
    return final


def fetch(project: RealProject, cache: Path = CACHE, log: Log = lambda m: None) -> Fetched:
    log(f"fetching {project.key} ...")
    sdist = fetch_sdist(project, cache)
    return Fetched(project, sdist, fetch_wheelhouse(project, cache), unpack(project, sdist, cache))


def project_layer(fetched: Fetched, base: str) -> Layer:
    project = fetched.project
    return Layer(repo=project.image_repo, dockerfile=DOCKERFILES / "project.Dockerfile", parent=base,
                 files={"src": fetched.source, "wheels": fetched.wheelhouse},
                 buildargs={"INSTALLS": " ".join(project.installs), "TESTS": " ".join(project.tests),
                            "SOURCES": " ".join(project.import_names)})


def ensure_project_image(api: docker.DockerClient, fetched: Fetched, log: Log = lambda m: None) -> str:
    base = images.ensure_base(api, log)
    try:
        return images.ensure_layer(api, project_layer(fetched, base), log)
    except images.ImageBuildError as err:
        raise images.ImageBuildError(f"project {fetched.project.key}: image build failed\n{err}") from None
