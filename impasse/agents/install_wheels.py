"""A Python agent made ready to run (`package.pypi` in its spec). Every wheel agents.lock pins for it,
its own and its dependencies', is fetched by the host's pip (its index, proxy and certificate
settings apply: inside a container PyPI's chain may not verify) into a private folder, each wheel
checked by size and sha256, then installed by pip into one folder (`--target`) for the task images'
python3, with no resolution of its own: the lock is the resolution. Beside it, a launcher that the
image's python3 runs isolated (`-I -S`): the agent sees its own folder and the standard library,
never the task's packages, and the commands it starts inherit no PYTHONPATH to see its packages."""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

from impasse.agents.pins import AgentSpec, PinnedFile, WheelsPin
from impasse.agents.specs import WheelPackage
from impasse.agents.unpack import AgentInstallError, mismatch
from impasse.hashing import file_sha256
from impasse.infra.images import Log
from impasse.paths import user_cache

GLIBC_MINOR = 36  # the task images' glibc (Debian bookworm's 2.36): the newest manylinux wheel they load
WHEEL_NAME = re.compile(r"^(?P<name>[^-]+)-(?P<version>[^-]+)-")


def platforms() -> list[str]:
    """pip's --platform for every manylinux tag the images' glibc loads (pip takes no range)."""
    tags = [f"manylinux_2_{minor}_x86_64" for minor in range(5, GLIBC_MINOR + 1)]
    return [flag for tag in (*tags, "manylinux1_x86_64", "manylinux2010_x86_64", "manylinux2014_x86_64")
            for flag in ("--platform", tag)]


def for_images(package: WheelPackage) -> list[str]:
    """pip's flags choosing wheels for the images' python3, not the host's."""
    return ["--only-binary=:all:", *platforms(), "--python-version", package.python, "--implementation", "cp",
            "--abi", "cp" + "".join(package.python.split(".")[:2])]


def requirement(wheel: PinnedFile) -> str:
    """`name==version --hash=…` from a wheel's file name: pip then fetches exactly that file or fails."""
    found = WHEEL_NAME.match(wheel.path)
    if found is None:
        raise AgentInstallError(f"agents.lock pins {wheel.path!r}, which is not a wheel's file name")
    return f"{found['name']}=={found['version']} --hash=sha256:{wheel.sha256}"


def marker_lines(package: WheelPackage, pin: WheelsPin) -> list[str]:
    """Its wheels, its python and its launcher: a folder made otherwise is made again."""
    made = launcher(package, "").encode()
    return [*(f"pypi:{w.path} {w.sha256} {w.size}\n" for w in pin.wheels), f"python {package.python}\n",
            f"launcher {hashlib.sha256(made).hexdigest()}\n"]


TMPDIR = "IMPASSE_AGENT_TMPDIR"  # the launcher's temporary folder, on the agent's own mount


def launcher(package: WheelPackage, site: str) -> str:
    """The program the launch runs with `python3 -I -S`: its folder of wheels on the path (its .pth
    files read), then its console script's function, as the script would call it. Its temporary
    files go to its own mount (`IMPASSE_AGENT_TMPDIR`: under disk_full or read_only_fs there is no
    other), taken out of its environment so that the commands it starts see the card's /tmp."""
    module, function = package.entry.split(":")
    return (f"import os, site, sys, tempfile\nsite.addsitedir({site!r})\n"
            f"tempfile.tempdir = os.environ.pop({TMPDIR!r}, None)\nsys.argv[0] = {package.entry.split('.')[0]!r}\n"
            f"from {module} import {function}\nsys.exit({function}())\n")


def fetch_wheels(spec: AgentSpec, pin: WheelsPin, tmp: Path, staging: Path, mount_point: str, log: Log) -> None:
    """Every pinned wheel fetched and checked (or taken from the wheel store, checked again), installed
    into `staging/site`, the launcher beside it; the wheels fetched are kept in the store after."""
    package = spec.agent.package
    assert isinstance(package, WheelPackage)
    download, requirements, store = tmp / "wheels", tmp / "requirements.txt", wheel_store()
    download.mkdir(parents=True)
    missing = from_store(store, pin.wheels, download)
    if missing:
        requirements.write_text("".join(f"{requirement(w)}\n" for w in missing))
        log(f"fetching {spec.label} ({package.spec(spec.version or '')}, {len(missing)} of {len(pin.wheels)} "
            "wheels) with pip ...")
        pip(spec, ["download", "--no-deps", *for_images(package), "-r", str(requirements), "-d", str(download)])
    for wheel in missing:
        check_wheel(spec, download / wheel.path, wheel)
    log(f"installing {spec.label}'s wheels for python {package.python} ...")
    pip(spec, ["install", "--no-deps", "--no-index", "--no-warn-script-location", *for_images(package),
               "--target", str(staging / package.SITE), *(str(download / w.path) for w in pin.wheels)])
    staging.joinpath(package.LAUNCHER).write_text(launcher(package, f"{mount_point}/{package.SITE}"))
    keep_in_store(store, missing, download)


def wheel_store() -> Path:
    """Checked wheels kept for the next fetch (a cache folder cut short and made again, another cache):
    each downloaded once per machine, as pip keeps its own. `$IMPASSE_WHEEL_CACHE` if set."""
    if explicit := os.environ.get("IMPASSE_WHEEL_CACHE"):
        return Path(explicit)
    return user_cache("wheels")


def from_store(store: Path, wheels: tuple[PinnedFile, ...], download: Path) -> list[PinnedFile]:
    """Each pinned wheel the store holds at its pinned size and digest, linked into `download`; the
    ones still to fetch. A stored wheel is checked on every use: the store is any folder on disk."""
    missing = []
    for wheel in wheels:
        kept = store / wheel.path
        if kept.is_file() and kept.stat().st_size == wheel.size and file_sha256(kept) == wheel.sha256:
            try:
                os.link(kept, download / wheel.path)
            except OSError:  # another file system
                shutil.copyfile(kept, download / wheel.path)
        else:
            missing.append(wheel)
    return missing


def keep_in_store(store: Path, wheels: list[PinnedFile], download: Path) -> None:
    """The wheels fetched and checked, into the store; each renamed into place whole, so a reader never
    sees half of one."""
    store.mkdir(parents=True, exist_ok=True)
    for wheel in wheels:
        part = store / f".{wheel.path}.{os.getpid()}"
        shutil.copyfile(download / wheel.path, part)
        os.replace(part, store / wheel.path)


def check_wheel(spec: AgentSpec, path: Path, pinned: PinnedFile) -> None:
    if not path.is_file():
        raise AgentInstallError(f"{spec.label}: pip fetched no {pinned.path}; nothing was kept")
    found = file_sha256(path)
    if found != pinned.sha256 or path.stat().st_size != pinned.size:
        raise mismatch(spec, pinned.path, pinned.sha256, found)


def pip(spec: AgentSpec, argv: list[str]) -> None:
    """The host's pip, as impasse's own interpreter runs it; its own reason in one line on failure."""
    try:
        done = subprocess.run([sys.executable, "-m", "pip", *argv, "--disable-pip-version-check", "-q"],
                              capture_output=True, text=True, timeout=1800)
    except subprocess.TimeoutExpired:
        raise AgentInstallError(f"{spec.label}: pip {argv[0]} took over 30 minutes; check the package index "
                                "is reachable (pip config list)") from None
    if done.returncode == 0:
        return
    if found := HASH_MISMATCH.search(done.stderr):  # pip's own check of the pinned digest, before ours
        raise mismatch(spec, found["wheel"], found["pinned"], found["found"])
    raise AgentInstallError(f"{spec.label}: pip {argv[0]} failed: {pip_failure(done)} "
                            "(is the package index reachable? pip config list)")


# pip's words for a file whose digest is not the pinned one: the file, then the two digests
HASH_MISMATCH = re.compile(r"(?P<wheel>[^\s/]+\.whl)\b.*?\n\s*Expected sha256 (?P<pinned>[0-9a-f]{64})\n"
                           r"\s*Got\s+(?P<found>[0-9a-f]{64})", re.S)
UNREACHABLE = re.compile(r"Failed to establish a new connection: (?:\[Errno -?\d+\] )?(?P<why>[^'\")]+)")


def pip_failure(done: subprocess.CompletedProcess) -> str:
    """pip's reason in one line: an index it could not reach, else its last error."""
    if found := UNREACHABLE.search(done.stderr):
        return f"the package index could not be reached ({found['why'].strip()})"
    lines = [line.strip() for line in done.stderr.splitlines() if line.strip() and not line.startswith("WARNING")]
    errors = [line for line in lines if line.startswith("ERROR")]
    return (errors or lines or [f"exit {done.returncode}"])[-1]
