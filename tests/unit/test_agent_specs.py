"""Agents as declared specs: today's exact launches and refusals, pinned."""

from __future__ import annotations

import pytest

from impasse.agents.compat import check_agent
from impasse.agents.launch import ENVIRONMENT, LAUNCHES, prepare_command
from impasse.agents.pins import AgentSpecError, parse_agent
from impasse.catalog.cards import card_paths
from impasse.vocabulary import Gate

PROMPT = "Fix it; don't touch tests/."
ENTRIES = {"claude-code": "/opt/impasse-agents/claude", "codex": "/opt/impasse-agents/bin/codex"}
MCP_ARGS = '["-I", "-S", "/opt/impasse-agents/impasse_mcp.py"]'
QUOTED_PROMPT = "'Fix it; don'\"'\"'t touch tests/.'"
CLAUDE_SETUP = ("printf '%s' '{\"mcpServers\": {\"impasse\": {\"type\": \"stdio\", \"command\": \"python3\", "
                "\"args\": " + MCP_ARGS + ", \"env\": {\"IMPASSE_MCP_LOG\": "
                "\"/impasse-agent/mcp_calls.jsonl\"{operator}}}}}' "
                "> /impasse-agent/mcp.json")
CLAUDE_COMMAND = ("ANTHROPIC_BASE_URL=http://127.0.0.1:8765 ANTHROPIC_API_KEY=sk-ant-relay "
                  "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 ENABLE_TOOL_SEARCH=false DISABLE_AUTOUPDATER=1 "
                  f"/opt/impasse-agents/claude -p {QUOTED_PROMPT} --model impasse --output-format stream-json "
                  "--verbose --mcp-config /impasse-agent/mcp.json --strict-mcp-config --dangerously-skip-permissions")
CODEX_SETUP = ("printf '%s' 'model = \"impasse\"\nmodel_provider = \"relay\"\napproval_policy = \"never\"\n"
               "sandbox_mode = \"danger-full-access\"\nweb_search = \"disabled\"\n[model_providers.relay]\n"
               "name = \"relay\"\nbase_url = \"http://127.0.0.1:8765/v1\"\nwire_api = \"responses\"\n"
               "env_key = \"OPENAI_API_KEY\"\n[mcp_servers.impasse]\ncommand = \"python3\"\n"
               f"args = {MCP_ARGS}\n"
               "env = { IMPASSE_MCP_LOG = \"/impasse-agent/mcp_calls.jsonl\"{operator} }\n"
               "default_tools_approval_mode = \"approve\"\n' > /impasse-agent/codex/config.toml")
CODEX_COMMAND = ("OPENAI_API_KEY=relay /opt/impasse-agents/bin/codex exec --skip-git-repo-check --json "
                 f"-c analytics.enabled=false --disable plugins {QUOTED_PROMPT}")
OPERATOR = {"claude-code": ', "IMPASSE_OPERATOR_SOCKET": "/impasse-relay/model.sock"',
            "codex": ', IMPASSE_OPERATOR_SOCKET = "/impasse-relay/model.sock"'}
TODAY = {"claude-code": (CLAUDE_SETUP, CLAUDE_COMMAND), "codex": (CODEX_SETUP, CODEX_COMMAND)}
TODAY_ENVIRONMENT = {"HOME": "/impasse-agent/home", "CODEX_HOME": "/impasse-agent/codex",
                     "CLAUDE_CONFIG_DIR": "/impasse-agent/claude", "CLAUDE_CODE_TMPDIR": "/impasse-agent/tmp"}
FORWARDER = ("python3 -I -S /opt/impasse-agents/model_forwarder.py --port 8765 --socket /impasse-relay/model.sock "
             "> /impasse-agent/forwarder.log 2>&1 &")
MEMORY = ("the agent runs inside the container, so its own memory counts against the card's limit and the kernel "
          "kills the agent, not the tests")
THREADS = ("its faults hold the container's process table full, and the agent's runtime aborts when it cannot "
           "start a thread of its own")
TODAY_REFUSALS = {("claude-code@2.1.332", "flaky_sandbox"): THREADS, ("claude-code@2.1.332", "oom_kill"): MEMORY,
                  ("codex@0.171.0", "oom_kill"): MEMORY}


@pytest.mark.parametrize("answered", [False, True])
@pytest.mark.parametrize("agent", ["claude-code", "codex"])
def test_the_rendered_launch_is_todays_exact_setup_and_command(agent, answered):
    setup, command = TODAY[agent]
    launch = LAUNCHES[agent](ENTRIES[agent], PROMPT, answered=answered)
    assert launch.setup == setup.replace("{operator}", OPERATOR[agent] if answered else "")
    assert launch.command == command


def test_only_the_agents_in_the_container_have_a_launch():
    assert set(LAUNCHES) == {"claude-code", "codex"}


def test_the_agents_folders_and_the_forwarder_are_todays():
    assert ENVIRONMENT == TODAY_ENVIRONMENT
    folders, forwarder = prepare_command().split("\n")
    assert folders.split()[:2] == ["mkdir", "-p"]
    assert sorted(folders.split()[2:]) == sorted(TODAY_ENVIRONMENT.values())
    assert forwarder == FORWARDER


def test_the_refusals_are_todays_messages():
    refused = {}
    for name in ("claude-code", "codex", "mini-swe-agent"):
        agent = parse_agent(name)
        for card in (p.stem for p in card_paths()):
            try:
                check_agent(agent, Gate.TOOL, None, card)
            except AgentSpecError as err:
                refused[(agent.label, card)] = str(err)
    assert refused == {key: f"agent {key[0]} under {key[1]}: {why}" for key, why in TODAY_REFUSALS.items()}
