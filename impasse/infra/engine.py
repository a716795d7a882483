"""Bring the Docker engine up: use it if it answers, install and start it if we may, else say how.

Every make target that needs Docker calls `impasse engine up` first, so this must be idempotent and
cheap when the engine already answers (one `docker info`).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

DOCKERD_LOG = Path("/var/log/impasse-dockerd.log")
WAIT_SECONDS = 60
APT_PACKAGES = ("docker.io", "debootstrap")

HOW_TO = """\
Docker Engine is not reachable and impasse cannot start it here.
impasse needs a running Docker Engine (dockerd) that this user may talk to:
  - on Debian/Ubuntu, as root:  apt-get install -y docker.io debootstrap && dockerd &
  - elsewhere: install Docker Engine (https://docs.docker.com/engine/install/), start it,
    and add your user to the 'docker' group (or run as root).
Then run the command again. `impasse doctor` shows what is missing."""


class EngineUnavailable(RuntimeError):
    """The engine does not answer and cannot be started from here; the message says what to do."""


@dataclass(frozen=True)
class EngineStatus:
    reachable: bool
    server_version: str = ""
    detail: str = ""


def probe() -> EngineStatus:
    """One `docker info` call: is the engine answering, and which version is it."""
    if shutil.which("docker") is None:
        return EngineStatus(False, detail="docker CLI not installed")
    try:
        done = subprocess.run(
            ["docker", "info", "--format", "{{.ServerVersion}}"],
            capture_output=True, text=True, timeout=20,
        )
    except subprocess.TimeoutExpired:
        return EngineStatus(False, detail="docker info timed out")
    if done.returncode != 0 or not done.stdout.strip():
        return EngineStatus(False, detail=(done.stderr or done.stdout).strip()[:300])
    return EngineStatus(True, server_version=done.stdout.strip())


def can_self_install() -> bool:
    """Only root on a Debian-family system, talking to the local socket, may install and start
    dockerd; a DOCKER_HOST elsewhere is the user's engine and starting a local one would not help."""
    if os.environ.get("IMPASSE_NO_SELF_INSTALL"):  # the user manages Docker: never apt, never start dockerd
        return False
    return (os.geteuid() == 0 and not os.environ.get("DOCKER_HOST")
            and Path("/etc/debian_version").exists() and bool(shutil.which("apt-get")))


def apt_install(packages: tuple[str, ...]) -> None:
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    subprocess.run(["apt-get", "update", "-qq"], check=True, env=env)
    subprocess.run(["apt-get", "install", "-y", "-qq", *packages], check=True, env=env)


def missing_packages() -> tuple[str, ...]:
    wanted = {"docker.io": "dockerd", "debootstrap": "debootstrap"}
    return tuple(pkg for pkg, binary in wanted.items() if shutil.which(binary) is None
                 and not Path(f"/usr/sbin/{binary}").exists())


def start_dockerd() -> None:
    """Start dockerd detached from us (its own session), logging to a file, unless it already runs."""
    running = subprocess.run(["pgrep", "-x", "dockerd"], capture_output=True).returncode == 0
    if running:
        return
    dockerd = shutil.which("dockerd") or "/usr/sbin/dockerd"
    log = DOCKERD_LOG.open("ab")
    subprocess.Popen([dockerd], stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                     start_new_session=True)


def wait_until_reachable(seconds: float = WAIT_SECONDS) -> EngineStatus:
    deadline = time.monotonic() + seconds
    status = probe()
    while not status.reachable and time.monotonic() < deadline:
        time.sleep(0.5)
        status = probe()
    return status


def ensure_engine(log=print) -> EngineStatus:
    """Return a reachable engine's status, installing/starting dockerd when allowed."""
    status = probe()
    if status.reachable:
        return status
    if not can_self_install():
        raise EngineUnavailable(f"{HOW_TO}\n(docker said: {status.detail})")
    missing = missing_packages()
    if missing:
        log(f"installing {' '.join(missing)} with apt-get ...")
        apt_install(missing)
    log(f"starting dockerd (log: {DOCKERD_LOG}) ...")
    start_dockerd()
    status = wait_until_reachable()
    if not status.reachable:
        raise EngineUnavailable(
            f"dockerd was started but did not answer within {WAIT_SECONDS}s; see {DOCKERD_LOG}\n"
            f"(docker said: {status.detail})")
    return status


def ensure_debootstrap(log=print) -> str:
    """debootstrap is needed only for the registry-less base build; install it on demand."""
    found = shutil.which("debootstrap") or ("/usr/sbin/debootstrap"
                                             if Path("/usr/sbin/debootstrap").exists() else None)
    if found:
        return found
    if not can_self_install():
        raise EngineUnavailable("debootstrap is needed to build the base image without a registry;"
                                " install it (apt-get install debootstrap) and run again.")
    log("installing debootstrap with apt-get ...")
    apt_install(("debootstrap",))
    return shutil.which("debootstrap") or "/usr/sbin/debootstrap"
