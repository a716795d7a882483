"""The base image, for real: uid 1000, no sudo, pytest works, containers never outlive the test."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import docker.errors
import pytest

from impasse.infra import images
from impasse.infra.sandbox import SandboxSpec, open_sandbox
from tests.conftest import default_sigint

from .containers import labelled, own_id

pytestmark = pytest.mark.docker


def test_agent_is_uid_1000_without_sudo_and_pytest_runs(api, base_image):
    spec = SandboxSpec(image=base_image, labels={"impasse.run_id": own_id("t-base-user")})
    with open_sandbox(api, spec) as box:
        assert box.exec("id -u; id -un").output.split() == ["1000", "agent"]
        sudo = box.exec("sudo true")
        assert sudo.exit_code == 127
        assert "sudo: command not found" in sudo.output
        assert box.exec("test -d /home/agent && test -w /home/agent").exit_code == 0
        test = "def test_adds():\n    assert 1 + 1 == 2\n"
        assert box.exec(f"printf '{test}' > test_tiny.py && python3 -m pytest -q").exit_code == 0
        assert "1 passed" in box.exec("python3 -m pytest -q test_tiny.py").output
        env = box.exec("echo $TZ $PYTHONHASHSEED $PYTHONDONTWRITEBYTECODE").output.split()
        assert env == ["UTC", "0", "1"]
    assert labelled(api, own_id("t-base-user")) == []


def test_container_is_removed_when_the_body_raises(api, base_image):
    spec = SandboxSpec(image=base_image, labels={"impasse.run_id": own_id("t-base-raise")})
    with pytest.raises(RuntimeError), open_sandbox(api, spec) as box:
        assert labelled(api, own_id("t-base-raise"))
        box.exec("true")
        raise RuntimeError("boom")
    assert labelled(api, own_id("t-base-raise")) == []


def test_commands_time_out_inside_the_container(api, base_image):
    spec = SandboxSpec(image=base_image, labels={"impasse.run_id": own_id("t-base-timeout")})
    with open_sandbox(api, spec) as box:
        result = box.exec("sleep 30", timeout=1)
        assert result.timed_out
        assert result.duration < 10
        assert box.exec("pgrep -x sleep | wc -l").output.strip() == "1"  # only the TTL sleep


def test_rootfs_came_from_debootstrap_with_every_package(api, base_image):
    assert images.try_registry_base(api, log=lambda m: None) is None  # no registry here
    rootfs = images.rootfs_tag()
    assert images.exists(api, rootfs)
    assert api.images.get(rootfs).labels.get("impasse") == "1"
    packages = " ".join(images.rootfs_packages())
    spec = SandboxSpec(image=base_image, labels={"impasse.run_id": own_id("t-base-pkgs")})
    with open_sandbox(api, spec) as box:
        result = box.exec(f"dpkg -s {packages} >/dev/null && grep -q '^12' /etc/debian_version")
        assert result.exit_code == 0, result.output


INTERRUPTED_BUILD = textwrap.dedent("""
    import sys
    from pathlib import Path
    from impasse.infra import images
    layer = images.Layer(repo="impasse-test-interrupt", dockerfile=Path(sys.argv[1]), files={},
                         parent=sys.argv[2], buildargs={"NONCE": sys.argv[3]})
    print(layer.tag, flush=True)
    images.ensure_layer(images.client(), layer, log=lambda m: None)
""")


def test_interrupted_build_leaves_no_final_tag(api, base_image, tmp_path: Path):
    dockerfile = tmp_path / "slow.Dockerfile"
    dockerfile.write_text("ARG BASE\nFROM ${BASE}\nARG NONCE\nRUN sleep 60 && echo $NONCE\n")
    proc = subprocess.Popen([sys.executable, "-c", INTERRUPTED_BUILD, str(dockerfile), base_image,
                             str(time.time_ns())], stdout=subprocess.PIPE, text=True, preexec_fn=default_sigint)
    tag = proc.stdout.readline().strip()
    time.sleep(4)
    os.kill(proc.pid, signal.SIGINT)
    proc.wait(timeout=30)
    assert proc.returncode != 0
    time.sleep(2)
    with pytest.raises(docker.errors.ImageNotFound):
        api.images.get(tag)


def test_doctor_reports_a_healthy_machine(api, base_image):
    from typer.testing import CliRunner

    from impasse.cli.main import app
    result = CliRunner().invoke(app, ["doctor"])
    assert result.exit_code == 0, result.output
    assert "docker engine" in result.output and "FAIL" not in result.output
