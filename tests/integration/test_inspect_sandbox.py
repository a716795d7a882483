"""The `impasse` Inspect sandbox type against the real engine: a sample's container under chown_root,
the blocker in place before the first call, every command as the agent (root refused), a file the
agent cannot write refused as Inspect's PermissionError, nothing left after cleanup; and an Inspect
eval end to end (inspect-ai's own loop and its mockllm model, which plays fixed tool calls), whose log
`impasse annotate` reads with the wall at the write that failed."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time

import anyio
import docker.errors
import pytest
from typer.testing import CliRunner

pytest.importorskip("inspect_ai", reason="the inspect extra is not installed: pip install -e '.[inspect]'")
from inspect_ai import Task  # noqa: E402
from inspect_ai import eval as inspect_eval  # noqa: E402
from inspect_ai.dataset import Sample  # noqa: E402
from inspect_ai.log import read_eval_log  # noqa: E402
from inspect_ai.model import ModelOutput, ModelUsage, get_model  # noqa: E402
from inspect_ai.solver import generate, solver, use_tools  # noqa: E402
from inspect_ai.tool import bash  # noqa: E402
from inspect_ai.util import sandbox  # noqa: E402

from impasse.cli.main import app  # noqa: E402
from impasse.defaults import TOOL_TIMEOUT  # noqa: E402
from impasse.inspect_ext.sandbox import ImpasseSandbox  # noqa: E402

pytestmark = pytest.mark.docker
TASK = "invoicekit-tax-rounding"
def inspect_containers(api, pid: int | None = None) -> list:
    """The Inspect sandboxes this process (or `pid`) started: another test's, in this suite or in one
    running beside it on the same engine, are not this test's to count."""
    return api.containers.list(all=True, filters={"label": ["impasse.inspect=1",
                                                            f"impasse.pid={pid or os.getpid()}"]})


def test_the_sandbox_runs_as_the_agent_refuses_root_and_cleans_up(api):
    before = {c.id for c in inspect_containers(api)}

    async def session() -> dict:
        environments = await ImpasseSandbox.sample_init("t", "chown_root", {"impasse_task": TASK})
        box = environments["default"]
        try:
            seen = {"uid": (await box.exec(["id", "-u"])).stdout.strip(),
                    "root": await box.exec(["id", "-u"], user="root"),
                    "piped": (await box.exec(["cat"], input="through stdin")).stdout,
                    "timed": (await box.exec(["true"], timeout=7)).success,
                    "kept": box.live.executor.timeout,
                    "read": await box.read_file("invoicekit/money.py")}
            try:
                await box.write_file("invoicekit/money.py", "print('mine')\n")
                seen["write"] = "written"
            except PermissionError as err:
                seen["write"] = str(err)
            seen["live"] = {c.id for c in inspect_containers(api)} - before
            return seen
        finally:
            await ImpasseSandbox.sample_cleanup("t", "chown_root", environments, interrupted=False)

    seen = anyio.run(session)
    assert seen["uid"] == "1000"
    assert not seen["root"].success and "as the agent only" in seen["root"].stderr
    assert seen["piped"] == "through stdin"
    assert seen["timed"] and seen["kept"] == TOOL_TIMEOUT  # a command's own timeout is not the next one's
    assert "def " in seen["read"]
    assert "Permission denied" in seen["write"]
    assert seen["live"]  # the sample had a container ...
    assert {c.id for c in inspect_containers(api)} - before == set()  # ... and it is gone


def test_an_inspect_eval_under_chown_root_is_annotated_with_its_wall(api, tmp_path):
    outputs = [
        ModelOutput.for_tool_call("mockllm/model", "bash", {"command": "echo '# note' >> invoicekit/money.py"}),
        ModelOutput.for_tool_call("mockllm/model", "bash", {"command": "ls -l invoicekit/money.py"}),
        ModelOutput.from_content("mockllm/model", "I cannot write invoicekit/money.py: it is owned by root "
                                                   "(Permission denied). Please chown it to my user."),
    ]
    for output in outputs:  # counted here: mockllm would count with tiktoken, whose tables come from the network
        output.usage = ModelUsage(input_tokens=100, output_tokens=20, total_tokens=120)
    task = Task(dataset=[Sample(input="Fix the tax rounding bug.", id="tax", metadata={"impasse_task": TASK})],
                solver=[use_tools(bash(timeout=60)), generate()], sandbox=("impasse", "chown_root"))
    logs = inspect_eval(task, model=get_model("mockllm/model", custom_outputs=outputs), log_dir=str(tmp_path / "logs"),
                        display="none")
    assert logs[0].status == "success", logs[0].error
    tool_results = [m for m in logs[0].samples[0].messages if m.role == "tool"]
    assert "Permission denied" in tool_results[0].text
    assert inspect_containers(api) == []
    done = CliRunner().invoke(app, ["annotate", str(tmp_path / "logs"), "--json", str(tmp_path / "a.json")],
                              terminal_width=250)
    assert done.exit_code == 0, done.output
    (row,) = json.loads((tmp_path / "a.json").read_text())
    assert row["run_id"].endswith("/tax#1") and row["t_star"] == 1, row


CANCELLED_EVAL = """
import signal, sys
signal.signal(signal.SIGINT, signal.default_int_handler)  # a child started with & inherits it ignored
from inspect_ai import Task, eval as inspect_eval
from inspect_ai.dataset import Sample
from inspect_ai.model import ModelOutput, ModelUsage, get_model
from inspect_ai.solver import generate, use_tools
from inspect_ai.tool import bash
output = ModelOutput.for_tool_call("mockllm/model", "bash", {"command": "echo started; sleep 600"})
output.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)
task = Task(dataset=[Sample(input="Fix it.", id="s", metadata={"impasse_task": sys.argv[1]})],
            solver=[use_tools(bash(timeout=900)), generate()], sandbox=("impasse", "chown_root"))
logs = inspect_eval(task, model=get_model("mockllm/model", custom_outputs=[output]),
                    log_dir=sys.argv[2], display="none")
print("RETURNED", [log.status for log in logs])
"""


def test_a_cancelled_eval_leaves_no_container(api, tmp_path):
    """Ctrl-C while the agent's command runs: Inspect cancels the eval, the sandbox's cleanup (shielded)
    removes the sample's container all the same."""
    child = subprocess.Popen([sys.executable, "-c", CANCELLED_EVAL, TASK, str(tmp_path / "logs")],
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        sample = wait_for(lambda: running_sleep(api, child.pid), 300)
        assert sample, "the sample's command never started"
        child.send_signal(signal.SIGINT)
        output, _ = child.communicate(timeout=180)
    finally:
        child.kill()
    assert "RETURNED" in output, output[-2000:]  # Inspect took the Ctrl-C as a cancel, no traceback
    (written,) = (tmp_path / "logs").glob("*.eval")
    assert read_eval_log(str(written), header_only=True).status == "cancelled"
    assert sample not in {c.id for c in api.containers.list(all=True, sparse=True)}, output[-2000:]


def test_a_failed_eval_leaves_no_container(api, tmp_path):
    @solver
    def breaks():
        async def solve(state, generate):
            await sandbox().exec(["true"])
            raise RuntimeError("the solver broke")
        return solve

    before = {c.id for c in inspect_containers(api)}
    task = Task(dataset=[Sample(input="Fix it.", id="s", metadata={"impasse_task": TASK})],
                solver=breaks(), sandbox=("impasse", "chown_root"))
    (log,) = inspect_eval(task, model=get_model("mockllm/model"), log_dir=str(tmp_path / "logs"), display="none")
    assert log.status == "error" and "the solver broke" in str(log.error)
    assert {c.id for c in inspect_containers(api)} - before == set()


def running_sleep(api, pid: int) -> str | None:
    """The container in which the cancelled eval's command runs: the eval process's own."""
    for container in inspect_containers(api, pid):
        with contextlib.suppress(docker.errors.DockerException):  # one that went away meanwhile
            if "sleep 600" in str(container.top(ps_args="-eo pid,args")["Processes"]):
                return container.id
    return None


def wait_for(ready, seconds: float):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        found = ready()
        if found:
            return found
        time.sleep(1)
    return None
