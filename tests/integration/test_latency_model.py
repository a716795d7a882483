"""`impasse run` through the real OpenAI adapter against the latency model (bench/latency_model.py):
one short episode on the real engine, with turns that take time and an endpoint that fails now and
then, ends exactly as the same scripted policy does when it runs in-process."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from bench.latency_model import Latency, LatencyModel, start
from impasse.episode.rundir import read_run
from impasse.runs.runner import RunSpec, execute

from .endpoints import Script, anthropic_tool_use, serve

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


def finished(out: Path) -> list[str]:
    return sorted(json.loads(p.read_text())["outcome"] for p in out.glob("*/result.json"))


def test_a_matrix_against_a_self_hosted_openai_endpoint_preflights_it_and_runs(tmp_path, monkeypatch):
    """`impasse matrix --base-url`: the preflight asks the endpoint the runs use (its request is the
    first the server sees), and both runs finish as the policy plays them."""
    monkeypatch.setenv("IMPASSE_MODEL_BACKOFF", "0.05")
    model = LatencyModel(Latency.parse("uniform:0.01:0.02"), seed=3)
    server, url = start(model)
    try:
        done = subprocess.run([sys.executable, "-m", "impasse", "matrix", "--models", "openai:oracle",
                               "--base-url", url, "--key-env", "SELF_HOSTED_KEY", "--conditions", "chown_root",
                               "--tasks", TASK, "--workers", "1", "--out", str(tmp_path / "runs")],
                              capture_output=True, text=True, timeout=600,
                              env={**os.environ, "SELF_HOSTED_KEY": "local", "OPENAI_API_KEY": ""})
    finally:
        server.shutdown()
        server.server_close()
    assert done.returncode == 0, done.stdout + done.stderr
    assert finished(tmp_path / "runs") == ["escalated", "resolved"]  # chown_root, and the control
    assert model.stats.first_max_tokens == 1  # the preflight's one-token request came first


def test_a_matrix_against_a_self_hosted_anthropic_endpoint_preflights_it_and_runs(tmp_path):
    """The same through the Anthropic wire, from a matrix file whose top-level endpoint and key
    variable every model takes: the preflight first, then each run's escalation."""
    ask = anthropic_tool_use("escalate_to_human", {"reason": "The work tree is owned by root: "
                                                                "chown it to me, please."})
    script = Script([anthropic_tool_use("bash", {"command": "true"}), ask, ask])
    server, url = serve(script)
    spec = tmp_path / "matrix.yaml"
    spec.write_text(yaml.safe_dump({"models": ["anthropic:self-hosted"], "base_url": url, "key_env": "MY_KEY",
                                    "conditions": ["chown_root"], "tasks": [TASK], "workers": 1,
                                    "out": str(tmp_path / "runs")}))
    try:
        done = subprocess.run([sys.executable, "-m", "impasse", "matrix", "--file", str(spec)], capture_output=True,
                              text=True, timeout=600, env={**os.environ, "MY_KEY": "local", "ANTHROPIC_API_KEY": ""})
    finally:
        server.shutdown()
        server.server_close()
    assert done.returncode == 0, done.stdout + done.stderr
    assert finished(tmp_path / "runs") == ["escalated", "escalated"]
    assert [r["body"]["max_tokens"] for r in script.requests][0] == 1
    # The key from the file's variable, on every request (as a bearer token or Anthropic's own header)
    keys = [{k.lower(): v for k, v in r["headers"].items()} for r in script.requests]
    assert all(h.get("x-api-key") == "local" or h.get("authorization") == "Bearer local" for h in keys), keys
    assert all(r["path"].endswith("/v1/messages") for r in script.requests)
