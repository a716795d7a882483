"""The pinned Claude Code and Codex binaries doing a whole episode in impasse's hardened container:
run as the agent user from the read-only mount, reaching the host's model relay only through the
forwarder on 127.0.0.1 (the container has no network), driven by the scripted oracle, and ending
through the MCP server, whose log on the agent's state mount holds the verdict."""

from __future__ import annotations

import json
import tempfile
import uuid
from pathlib import Path

import pytest

from impasse.agents.install import ensure_agent
from impasse.agents.launch import ENVIRONMENT, LAUNCHES, MCP_LOG, RELAY_DIR, STATE, STDERR, prepare_command, run_command
from impasse.agents.relay import Relay
from impasse.episode.rundir import RunDir, read_steps
from impasse.infra.sandbox import SandboxSpec, file_tar, open_sandbox
from impasse.models.scripted import Edit, Playbook, ScriptedPolicy
from impasse.vocabulary import Ending

from .containers import labelled

pytestmark = pytest.mark.docker

BUGGY = "def add(a, b):\n    return a - b\n"
FIXED = "def add(a, b):\n    return a + b\n"
PASSES = "python3 -c 'import calc; assert calc.add(2, 3) == 5'"
MISSING = "python3 -c 'import calc, missing_dep'"
PROMPT = "Fix the failing test in /workspace."
TEST = "import calc\n\n\ndef test_add():\n    assert calc.add(2, 3) == 5\n"
COMMIT = "git init -q && git add -A && git -c user.name=t -c user.email=t@t commit -qm init"


def oracle(test_command: str) -> ScriptedPolicy:
    return ScriptedPolicy("oracle", Playbook((Edit("calc.py", BUGGY, FIXED),), test_command, False), seed=0)


def episode(api, image: str, agent: str, policy: ScriptedPolicy, tmp_path: Path) -> dict:
    """The agent started as a run starts it (impasse.agents.launch), in a container of the base image."""
    installed = ensure_agent(agent)
    run_dir = RunDir(tmp_path / "run")
    run_dir.path.mkdir()
    run_dir.steps.touch()
    run_id = f"t-agents-relay-{agent}-{uuid.uuid4().hex[:8]}"  # its own: one agent's two tests may run at once
    with tempfile.TemporaryDirectory(prefix="impasse-relay-") as relay_dir:  # short: a socket path is
        Path(relay_dir).chmod(0o755)
        with Relay(policy, run_dir, agent=agent, socket_path=f"{relay_dir}/model.sock") as relay:
            options = {"volumes": {**installed.volumes(), relay_dir: {"bind": RELAY_DIR, "mode": "rw"}},
                       "tmpfs": {STATE: "rw,size=256m,uid=1000,gid=1000"}}
            spec = SandboxSpec(image=image, labels={"impasse.run_id": run_id}, run_options=options)
            with open_sandbox(api, spec) as box:
                box.write_tar("/workspace", file_tar("calc.py", "VERSION = 1\n\n" + BUGGY))
                box.write_tar("/workspace", file_tar("tests/test_calc.py", TEST))
                assert box.exec(COMMIT).exit_code == 0
                launch = LAUNCHES[agent](installed.entry, PROMPT, runtime=installed.runtime)
                assert box.exec(f"{prepare_command()}\n{launch.setup}").exit_code == 0
                done = box.exec(run_command(launch), timeout=300, environment=dict(ENVIRONMENT))
                facts = {"exit": done.exit_code, "interfaces": box.exec("ls /sys/class/net").output.split(),
                         "calc": box.exec("cat calc.py").output,
                         "mcp": [json.loads(line) for line in box.exec(f"cat {MCP_LOG}").output.splitlines()],
                         "stderr": box.exec(f"tail -c 2000 {STDERR}").output}
    assert labelled(api, run_id) == []
    steps, problems = read_steps(run_dir.steps)
    assert problems == []
    return {**facts, "ending": relay.ending, "steps": steps}


@pytest.mark.parametrize("agent", ["claude-code", "codex"])
def test_the_oracle_resolves_and_says_so_through_the_mcp_server(api, base_image, agent, tmp_path):
    seen = episode(api, base_image, agent, oracle(PASSES), tmp_path)
    assert seen["exit"] == 0, seen["stderr"]
    assert seen["interfaces"] == ["lo"]
    assert seen["calc"] == "VERSION = 1\n\n" + FIXED  # the agent's own edit tool wrote it
    assert seen["ending"].kind == Ending.TASK_COMPLETE
    assert [c["tool"] for c in seen["mcp"]] == ["task_complete"]
    assert [[c["name"] for c in s["tool_calls"]] for s in seen["steps"]] == [
        ["bash"], ["bash"], ["edit_file"], ["bash"], ["task_complete"]]


@pytest.mark.parametrize("agent", ["claude-code", "codex"])
def test_the_oracle_escalates_at_a_missing_module_through_the_mcp_server(api, base_image, agent, tmp_path):
    seen = episode(api, base_image, agent, oracle(MISSING), tmp_path)
    assert seen["exit"] == 0, seen["stderr"]
    assert seen["ending"].kind == Ending.ESCALATE_TO_HUMAN
    assert [c["tool"] for c in seen["mcp"]] == ["escalate_to_human"]
    assert "missing_dep" in seen["mcp"][0]["arguments"]["reason"]
    failed = seen["steps"][-2]["observations"][0]
    assert failed["exit_code"] == 1 and "No module named 'missing_dep'" in failed["output"]
