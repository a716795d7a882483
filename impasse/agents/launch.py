"""How each external agent is started inside the blocked container: its configuration, its
command line and its environment, everything it writes on its own mount (STATE), its model reached
through the forwarder on 127.0.0.1 (the container has no network), its verdicts through impasse's
MCP server. The settings are the ones that keep each agent offline and its own sandbox out of the
way (docs/agents.md says why each is there)."""

from __future__ import annotations

import json
import shlex
from dataclasses import dataclass

from impasse.agents.install import MOUNT_POINT

STATE = "/impasse-agent"  # the agent's own writable mount: off what chown_root, read_only_fs, disk_full take away
RELAY_DIR = "/impasse-relay"  # the host's relay socket folder, bind-mounted
SOCKET = f"{RELAY_DIR}/model.sock"
PORT = 8765
MCP_LOG = f"{STATE}/mcp_calls.jsonl"
TRANSCRIPT = f"{STATE}/transcript.jsonl"  # the agent's own stdout stream (stream-json, codex --json)
STDERR = f"{STATE}/stderr.txt"
MCP_ARGS = ["-I", "-S", f"{MOUNT_POINT}/impasse_mcp.py"]
ENVIRONMENT = {"HOME": f"{STATE}/home", "CODEX_HOME": f"{STATE}/codex", "CLAUDE_CONFIG_DIR": f"{STATE}/claude",
               # Claude Code makes /tmp/claude-<uid> at start and exits where /tmp is read-only
               "CLAUDE_CODE_TMPDIR": f"{STATE}/tmp"}
FORWARDER = (f"python3 -I -S {MOUNT_POINT}/model_forwarder.py --port {PORT} --socket {SOCKET} "
             f"> {STATE}/forwarder.log 2>&1 &")


@dataclass(frozen=True)
class Launch:
    setup: str  # writes the agent's configuration onto its mount
    command: str  # runs the agent to its end, its stdout and stderr onto its mount


def mcp_environment(answered: bool) -> dict[str, str]:
    """The MCP server's: its log, and with the operator on, the relay's socket it asks it through."""
    return {"IMPASSE_MCP_LOG": MCP_LOG, **({"IMPASSE_OPERATOR_SOCKET": SOCKET} if answered else {})}


def claude_code(entry: str, prompt: str, answered: bool = False) -> Launch:
    """Print mode with stream-json; no nonessential traffic (telemetry would look up its vendor's
    host); MCP tools offered up front, not behind its tool search; permissions skipped (as uid 1000
    it allows that): the container is the sandbox."""
    config = {"mcpServers": {"impasse": {"type": "stdio", "command": "python3", "args": MCP_ARGS,
                                         "env": mcp_environment(answered)}}}
    setup = f"printf '%s' {shlex.quote(json.dumps(config))} > {STATE}/mcp.json"
    command = (f"ANTHROPIC_BASE_URL=http://127.0.0.1:{PORT} ANTHROPIC_API_KEY=sk-ant-relay "
               "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 ENABLE_TOOL_SEARCH=false DISABLE_AUTOUPDATER=1 "
               f"{entry} -p {shlex.quote(prompt)} --model impasse --output-format stream-json --verbose "
               f"--mcp-config {STATE}/mcp.json --strict-mcp-config --dangerously-skip-permissions")
    return Launch(setup, command)


def codex(entry: str, prompt: str, answered: bool = False) -> Launch:
    """The relay as a Responses provider; no sandbox of its own (its read-only default would fake
    read_only_fs, workspace-write would fake git_index_lock); no analytics, plugins or web search
    (a provider-side tool the relay refuses); the MCP server's calls approved."""
    config = "\n".join([
        'model = "impasse"', 'model_provider = "relay"', 'approval_policy = "never"',
        'sandbox_mode = "danger-full-access"', 'web_search = "disabled"',
        "[model_providers.relay]", 'name = "relay"', f'base_url = "http://127.0.0.1:{PORT}/v1"',
        'wire_api = "responses"', 'env_key = "OPENAI_API_KEY"',
        "[mcp_servers.impasse]", 'command = "python3"', f"args = {json.dumps(MCP_ARGS)}",
        "env = { " + ", ".join(f'{k} = "{v}"' for k, v in mcp_environment(answered).items()) + " }",
        'default_tools_approval_mode = "approve"', ""])
    setup = f"printf '%s' {shlex.quote(config)} > {STATE}/codex/config.toml"
    command = (f"OPENAI_API_KEY=relay {entry} exec --skip-git-repo-check --json -c analytics.enabled=false "
               f"--disable plugins {shlex.quote(prompt)}")
    return Launch(setup, command)


LAUNCHES = {"claude-code": claude_code, "codex": codex}


def prepare_command() -> str:
    """The agent's folders on its mount, and the forwarder started in the background."""
    return f"mkdir -p {' '.join(ENVIRONMENT.values())}\n{FORWARDER}"  # two lines: `a && b &` would put both behind


def run_command(launch: Launch) -> str:
    """stdin closed (codex exec reads more prompt from an open stdin), stdout and stderr kept."""
    return f"{launch.command} </dev/null > {TRANSCRIPT} 2> {STDERR}"
