"""kill -9 of `impasse run --agent claude-code` mid-run, its model a provider's (the OpenAI adapter
on the host, behind the relay) served by a local endpoint that keeps the agent busy: the records
stay valid, no result is written, `impasse gc --stale` takes the container away and the next
external agent's start the relay's folder."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from impasse.agents.pins import parse_agent
from impasse.agents.relay_folders import RELAY_PREFIX, sweep_stale_relays
from impasse.episode.rundir import read_run
from tests.conftest import default_sigint

from .containers import labelled
from .endpoints import Script, openai_tool_call, serve
from .test_runs import wait_for_steps

pytestmark = pytest.mark.docker
TASK = "invoicekit-tax-rounding"


# each agent's own shell tool, which the model calls
SHELLS = {"claude-code": "Bash", "opencode": "bash", "gemini-cli": "run_shell_command",
          "qwen-code": "run_shell_command", "cecli": "local--Command"}


@pytest.fixture
def busy_endpoint(request):
    """A model that keeps calling the agent's own shell tool with `sleep 1`."""
    call = openai_tool_call(SHELLS[request.param], json.dumps({"command": "sleep 1"}))
    server, url = serve(Script([call] * 80))
    yield request.param, f"{url}/v1"
    server.shutdown()


@pytest.fixture
def private_tmp():
    """The run's temporary folder its own (short: a socket path has a length limit), so that no
    external run of another test sweeps this run's relay folder before this test looks for it."""
    folder = Path(tempfile.mkdtemp(prefix="ik"))
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


@pytest.mark.parametrize("busy_endpoint", list(SHELLS), indirect=True)
def test_sigkill_of_an_external_agent_run_leaves_valid_records_and_gc_reaps(api, tmp_path, busy_endpoint,
                                                                           private_tmp):
    agent, url = busy_endpoint
    proc = subprocess.Popen(
        [sys.executable, "-m", "impasse", "run", "--agent", agent, "--model", "openai:slow",
         "--base-url", url, "--condition", "chown_root", "--task", TASK, "--seed", "7",
         "--out", str(tmp_path)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, preexec_fn=default_sigint,
        env={**os.environ, "OPENAI_API_KEY": "sk-local-endpoint", "TMPDIR": str(private_tmp)})
    try:
        run_dir = wait_for_steps(tmp_path, 1)
    except AssertionError:
        proc.kill()
        raise AssertionError(f"no step: {proc.communicate()[1][-2000:]}") from None
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=30)
    record = read_run(run_dir)
    assert record.problems == []
    assert record.meta.agent == parse_agent(agent).label and record.result is None
    assert not (run_dir / "result.json").exists()
    assert record.steps and [s.index for s in record.steps] == list(range(1, len(record.steps) + 1))
    assert record.steps[0].tool_calls[0].name == "bash"  # the agent's shell, in impasse's name
    assert labelled(api, run_dir)  # a killed process cannot clean up ...
    done = subprocess.run([sys.executable, "-m", "impasse", "gc", "--stale"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert labelled(api, run_dir) == []  # ... so gc does
    left = set(private_tmp.glob(f"{RELAY_PREFIX}*"))  # and the relay's socket folder, which the next
    swept = set(sweep_stale_relays(str(private_tmp), older_than=0))  # external run sweeps
    assert left and left == swept and not any(folder.exists() for folder in swept), \
        [(str(f), sorted((c.name, c.is_socket(), c.stat().st_mtime) for c in f.iterdir()), f.stat().st_mtime)
         for f in left if f.exists()]
