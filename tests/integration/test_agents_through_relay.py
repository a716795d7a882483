"""The pinned Claude Code and Codex binaries doing a whole episode in impasse's hardened container:
run as the agent user from the read-only mount, reaching the host's model relay only through the
forwarder on 127.0.0.1 (the container has no network), driven by the scripted oracle, and ending
through the MCP server, whose log on the agent's state mount holds the verdict."""

from __future__ import annotations

import json
import shlex
import tempfile
from pathlib import Path

import pytest

from impasse.agents.install import MOUNT_POINT, ensure_agent
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
RELAY_DIR, STATE, PORT = "/impasse-relay", "/agent-state", 8765
# The agent's own files on its own mount, none under /tmp (see docs/agents.md)
STATE_ENV = {"HOME": f"{STATE}/home", "CODEX_HOME": f"{STATE}/codex", "CLAUDE_CONFIG_DIR": f"{STATE}/claude",
             "CLAUDE_CODE_TMPDIR": f"{STATE}/tmp"}
MCP_LOG = f"{STATE}/mcp_calls.jsonl"
MCP_ARGS = ["-I", "-S", f"{MOUNT_POINT}/impasse_mcp.py"]
PROMPT = "Fix the failing test in /workspace."


def claude_code_launch(entry: str) -> tuple[str, str]:
    """The MCP config, and the command: offline (no nonessential traffic), MCP tools offered up front."""
    config = {"mcpServers": {"impasse": {"type": "stdio", "command": "python3", "args": MCP_ARGS,
                                         "env": {"IMPASSE_MCP_LOG": MCP_LOG}}}}
    write = f"printf '%s' {shlex.quote(json.dumps(config))} > {STATE}/mcp.json"
    run = (f"ANTHROPIC_BASE_URL=http://127.0.0.1:{PORT} ANTHROPIC_API_KEY=sk-ant-none "
           "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 ENABLE_TOOL_SEARCH=false "
           f"{entry} -p {shlex.quote(PROMPT)} --model scripted --output-format stream-json --verbose "
           f"--mcp-config {STATE}/mcp.json --strict-mcp-config --dangerously-skip-permissions")
    return write, run


def codex_launch(entry: str) -> tuple[str, str]:
    """config.toml: the relay as a Responses provider, no sandbox of its own (the container is one), no
    web search (a provider-side tool the relay refuses), the MCP server's calls approved."""
    config = "\n".join([
        'model = "scripted"', 'model_provider = "relay"', 'approval_policy = "never"',
        'sandbox_mode = "danger-full-access"', 'web_search = "disabled"',
        "[model_providers.relay]", 'name = "relay"', f'base_url = "http://127.0.0.1:{PORT}/v1"',
        'wire_api = "responses"', 'env_key = "OPENAI_API_KEY"',
        "[mcp_servers.impasse]", 'command = "python3"', f"args = {json.dumps(MCP_ARGS)}",
        f'env = {{ IMPASSE_MCP_LOG = "{MCP_LOG}" }}', 'default_tools_approval_mode = "approve"', ""])
    write = f"printf '%s' {shlex.quote(config)} > {STATE}/codex/config.toml"
    run = (f"OPENAI_API_KEY=none {entry} exec --skip-git-repo-check --json -c analytics.enabled=false "
           f"--disable plugins {shlex.quote(PROMPT)}")
    return write, run


LAUNCH = {"claude-code": claude_code_launch, "codex": codex_launch}
TEST = "import calc\n\n\ndef test_add():\n    assert calc.add(2, 3) == 5\n"
COMMIT = "git init -q && git add -A && git -c user.name=t -c user.email=t@t commit -qm init"


def oracle(test_command: str) -> ScriptedPolicy:
    return ScriptedPolicy("oracle", Playbook((Edit("calc.py", BUGGY, FIXED),), test_command, False), seed=0)


def episode(api, image: str, agent: str, policy: ScriptedPolicy, tmp_path: Path) -> dict:
    installed = ensure_agent(agent)
    run_dir = RunDir(tmp_path / "run")
    run_dir.path.mkdir()
    run_dir.steps.touch()
    run_id = f"t-agents-relay-{agent}"
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
                assert box.exec(f"mkdir -p {' '.join(STATE_ENV.values())}").exit_code == 0
                box.exec(f"python3 -I -S {MOUNT_POINT}/model_forwarder.py --port {PORT} "
                         f"--socket {RELAY_DIR}/model.sock > {STATE}/forwarder.log 2>&1 &")
                write, run = LAUNCH[agent](installed.entry)
                assert box.exec(write).exit_code == 0
                done = box.exec(f"{run} </dev/null > {STATE}/transcript.jsonl 2> {STATE}/stderr.txt", timeout=300,
                                environment=STATE_ENV)
                facts = {"exit": done.exit_code, "interfaces": box.exec("ls /sys/class/net").output.split(),
                         "calc": box.exec("cat calc.py").output,
                         "mcp": [json.loads(line) for line in box.exec(f"cat {MCP_LOG}").output.splitlines()],
                         "stderr": box.exec(f"tail -c 2000 {STATE}/stderr.txt").output}
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
