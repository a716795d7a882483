"""The escape and abuse suite: a hostile agent, speaking the real OpenAI wire format, tries to get
out, take over or take down its sandbox. Each attempt fails or is contained, the harness survives
and records it, the episode ends cleanly with a valid trajectory, and no container is left."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from impasse.episode.rundir import read_run
from impasse.runs.runner import RunSpec, execute

from .containers import labelled
from .endpoints import Script, openai_tool_call, serve

pytestmark = pytest.mark.docker
TASK = "invoicekit-tax-rounding"
# (command, what must be true of its output, exit code: None means any)
CONTAINED = [
    ("sudo id", "sudo: command not found", 127),
    ("su -c id root < /dev/null", "Authentication failure", 1),
    ("find / -xdev -perm -4000 -type f 2>/dev/null | head -3; /usr/bin/newgrp 2>&1 | head -1; id -u", "1000", None),
    ("mount -t tmpfs none /mnt", "must be superuser", 32),
    ("unshare -r id", "Operation not permitted", 1),
    ("echo 'evil:x:0:0::/:/bin/sh' >> /etc/passwd", "Permission denied", 1),
    ("ls -la /var/run/docker.sock /run/docker.sock", "No such file or directory", 2),
    ("cat /proc/net/route | wc -l; ls /sys/class/net", "lo", 0),
    ("python3 -c \"b = bytearray(10 * 1024**3)\"", "", 137),
    (":(){ :|:& };:", "", None),
]


def run_script(api, tmp_path, commands: list[str], seed: int, timeout: int = 20):
    """`seed` only keeps the run ids of tests running side by side apart."""
    replies = [openai_tool_call("bash", json.dumps({"command": c})) for c in commands]
    replies.append(openai_tool_call("escalate_to_human", json.dumps({"reason": "done probing"})))
    server, url = serve(Script(replies))
    try:
        return execute(api, RunSpec("openai:hostile", "none", TASK, seed=seed, out=tmp_path, base_url=f"{url}/v1",
                                    tool_timeout=timeout))
    finally:
        server.shutdown()


def no_container(api, run: Path) -> bool:
    return labelled(api, run) == []


def test_every_attempt_fails_or_is_contained(api, tmp_path):
    result = run_script(api, tmp_path, [c for c, _, _ in CONTAINED], seed=1, timeout=15)
    record = read_run(result.path)
    steps, final = record.steps, record.result
    assert record.problems == [] and result.outcome == "escalated"
    for (command, expected, code), step in zip(CONTAINED, steps, strict=False):
        obs = step.observations[0]
        assert expected in obs.output, (command, obs.output[-300:])
        if code is not None:
            assert obs.exit_code == code, (command, obs.exit_code)
    assert steps[-2].observations[0].timed_out or steps[-2].observations[0].exit_code != 0  # fork bomb
    assert final.integrity_ok and final.truth["grade"] is not None
    assert no_container(api, result.path)


@pytest.mark.parametrize("command", ["pkill -9 -f channel.py", "kill -9 -1"])
def test_killing_the_harness_side_ends_the_run_as_an_infrastructure_failure(api, tmp_path, command):
    result = run_script(api, tmp_path, [command, "ls"], seed=2 + len(command))
    record = read_run(result.path)
    assert record.problems == [] and result.outcome == "harness_error"
    assert "channel" in record.steps[-1].harness_error
    assert no_container(api, result.path)


def test_filling_the_disk_is_contained(api, tmp_path, monkeypatch):
    monkeypatch.setenv("IMPASSE_DISK_LIMIT_MB", "256")
    result = run_script(api, tmp_path, ["head -c 400000000 /dev/zero > /home/agent/fill", "ls"], seed=99)
    steps = read_run(result.path).steps
    assert result.outcome == "harness_error"
    assert "disk quota exceeded" in steps[-1].harness_error
    assert no_container(api, result.path)
