import os
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

import impasse
from impasse.infra import engine

SYSTEM_PYTHON = Path("/usr/bin/python3")


def run_cli_as_nobody(*args: str) -> subprocess.CompletedProcess:
    """Run the real CLI as a real unprivileged user. The venv's interpreter may live under a private
    home (/root), so the system python runs it with the venv's packages on its path."""
    if os.geteuid() != 0 or not SYSTEM_PYTHON.exists():
        pytest.skip("needs root (to drop to nobody) and /usr/bin/python3")
    paths = [str(Path(impasse.__file__).parent.parent), sysconfig.get_paths()["purelib"]]
    if not all(world_readable(Path(p)) for p in paths):
        pytest.skip(f"the checkout or the venv is not readable by other users ({paths}); "
                    "test_an_engine_the_user_manages_is_never_self_installed covers the same path as root")
    env = {"PATH": "/usr/bin:/bin", "DOCKER_HOST": "unix:///nonexistent/docker.sock",
           "HOME": "/tmp", "PYTHONPATH": ":".join(paths)}
    return subprocess.run([str(SYSTEM_PYTHON), "-m", "impasse", *args], capture_output=True,
                          text=True, env=env, user=65534, group=65534, cwd="/tmp", timeout=60)


def world_readable(path: Path) -> bool:
    return all(p.stat().st_mode & 0o001 for p in [path, *path.parents])


def test_an_engine_the_user_manages_is_never_self_installed():
    env = {**os.environ, "DOCKER_HOST": "unix:///nonexistent/docker.sock", "IMPASSE_NO_SELF_INSTALL": "1"}
    done = subprocess.run([sys.executable, "-m", "impasse", "engine", "up"], capture_output=True, text=True,
                          env=env, timeout=60)
    assert done.returncode == 2
    assert "Docker Engine is not reachable" in done.stderr and "Traceback" not in done.stderr


def test_unreachable_engine_without_root_exits_2_with_how_to():
    done = run_cli_as_nobody("engine", "up")
    assert done.returncode == 2
    assert "Docker Engine is not reachable" in done.stderr
    assert "apt-get install -y docker.io" in done.stderr
    assert "Traceback" not in done.stderr + done.stdout


def test_gc_with_unreachable_engine_exits_2_without_traceback():
    done = run_cli_as_nobody("gc")
    assert done.returncode == 2
    assert "Traceback" not in done.stderr


def test_probe_reports_missing_cli(monkeypatch):
    monkeypatch.setenv("PATH", "/nonexistent")
    status = engine.probe()
    assert not status.reachable
    assert "not installed" in status.detail


def test_foreign_docker_host_is_never_self_installed(monkeypatch):
    monkeypatch.setenv("DOCKER_HOST", "tcp://127.0.0.1:1")
    assert not engine.can_self_install()
