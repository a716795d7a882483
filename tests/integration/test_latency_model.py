"""`impasse run` through the real OpenAI adapter against the latency model (bench/latency_model.py):
one short episode on the real engine, with turns that take time and an endpoint that fails now and
then, ends exactly as the same scripted policy does when it runs in-process."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from bench.latency_model import Latency, LatencyModel, start
from impasse.episode.rundir import read_run
from impasse.runs.runner import RunSpec, execute

pytestmark = pytest.mark.docker
TASK = "invoicekit-tax-rounding"


def actions(path: Path | str) -> list:
    return [[(c.name, c.raw_arguments, o.exit_code) for c, o in zip(s.tool_calls, s.observations, strict=True)]
            for s in read_run(Path(path)).steps]


def test_an_episode_through_the_latency_model_is_the_policys_episode(api, tmp_path, monkeypatch):
    monkeypatch.setenv("IMPASSE_MODEL_BACKOFF", "0.05")
    monkeypatch.setenv("IMPASSE_MODEL_ATTEMPTS", "12")
    model = LatencyModel(Latency.parse("uniform:0.1:0.3"), rate_429=0.2, rate_5xx=0.2, seed=11)
    server, url = start(model)
    try:
        done = subprocess.run([sys.executable, "-m", "impasse", "run", "--model", "openai:oracle", "--base-url", url,
                               "--condition", "chown_root", "--task", TASK, "--seed", "0", "--out",
                               str(tmp_path / "remote")], capture_output=True, text=True, timeout=300)
    finally:
        server.shutdown()
        server.server_close()
    assert done.returncode == 0, done.stderr
    remote = read_run(Path(done.stdout.split()[0]))
    local = execute(api, RunSpec("scripted:oracle", "chown_root", TASK, seed=0, out=tmp_path / "local"))
    assert remote.result.outcome == local.outcome == "escalated"
    assert actions(remote.path) == actions(local.path)
    steps = remote.steps
    assert all(s.usage["prompt_tokens"] > 0 and s.usage["completion_tokens"] > 0 for s in steps)
    assert steps[-1].usage["prompt_tokens"] > steps[0].usage["prompt_tokens"]  # the conversation grows
    assert all(s.duration >= 0.1 for s in steps)  # each turn waited on the model
    statuses = model.stats.to_dict()["statuses"]
    # One answered request per step, and the preflight's before any container; some failed and were retried
    assert statuses["200"] == len(steps) + 1 and len(statuses) > 1
