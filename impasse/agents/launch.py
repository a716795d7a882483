"""How each external agent is started inside the blocked container: its configuration, its
command line and its environment, everything it writes on its own mount (STATE), its model reached
through the forwarder on 127.0.0.1 (the container has no network), its verdicts through impasse's
MCP server. What each agent's are is its spec's (`launch` in impasse/agents/specs/NAME.yaml, with
why each setting is there: the ones that keep it offline and its own sandbox out of the way); this
module renders them."""

from __future__ import annotations

import functools
import json
import shlex
from dataclasses import dataclass

from impasse.agents.install import MOUNT_POINT
from impasse.agents.specs import PLACEHOLDER, AgentDeclaration, load_specs

STATE = "/impasse-agent"  # the agent's own writable mount: off what chown_root, read_only_fs, disk_full take away
WORKSPACE = "/workspace"  # the work tree, in every task image
RELAY_DIR = "/impasse-relay"  # the host's relay socket folder, bind-mounted
SOCKET = f"{RELAY_DIR}/model.sock"
PORT = 8765
MCP_LOG = f"{STATE}/mcp_calls.jsonl"
TRANSCRIPT = f"{STATE}/transcript.jsonl"  # the agent's own stdout stream (stream-json, codex --json)
STDERR = f"{STATE}/stderr.txt"
AGENT_GROUP = f"{STATE}/agent.pgid"  # the agent's process group, for a stop from the host
MCP_ARGS = ["-I", "-S", f"{MOUNT_POINT}/impasse_mcp.py"]
PLAIN = {"port": str(PORT), "state": STATE}  # the placeholders every template may hold
FORWARDER = (f"python3 -I -S {MOUNT_POINT}/model_forwarder.py --port {PORT} --socket {SOCKET} "
             f"> {STATE}/forwarder.log 2>&1 &")


@dataclass(frozen=True)
class Launch:
    setup: str  # writes the agent's configuration onto its mount
    command: str  # runs the agent to its end, its stdout and stderr onto its mount


def mcp_environment(answered: bool) -> dict[str, str]:
    """The MCP server's: its log, and with the operator on, the relay's socket it asks it through."""
    return {"IMPASSE_MCP_LOG": MCP_LOG, **({"IMPASSE_OPERATOR_SOCKET": SOCKET} if answered else {})}


def mcp_values(fmt: str, answered: bool) -> dict[str, str]:
    """`{mcp_args}`, `{mcp_command}` (python3 and its arguments, for an agent that takes one argv) and
    `{mcp_env}` as the configuration file's format writes them."""
    env = mcp_environment(answered)
    argv = {"mcp_args": json.dumps(MCP_ARGS), "mcp_command": json.dumps(["python3", *MCP_ARGS])}
    if fmt == "toml":  # an inline table; the args, a JSON array of strings, are TOML's too
        return argv | {"mcp_env": "{ " + ", ".join(f'{k} = "{v}"' for k, v in env.items()) + " }"}
    return argv | {"mcp_env": json.dumps(env)}


def render(template: str, values: dict[str, str]) -> str:
    """The template's placeholders filled in (the loader has checked each is one this field takes)."""
    return PLACEHOLDER.sub(lambda found: values[found.group(1)], template)


def render_launch(agent: AgentDeclaration, entry: str, prompt: str, answered: bool = False,
                  runtime: str = "") -> Launch:
    """An agent's spec made its setup and command line: the configuration file written onto its
    mount, its variables and command line with the prompt shell-quoted. `answered`: the operator is
    on, and the MCP server asks it through the relay's socket. `runtime`: the program of the runtime
    the spec declares (`{runtime}`: /opt/impasse-agents/node/bin/node), as install.py put it."""
    headless = agent.launch
    assert headless is not None, f"{agent.name} is not launched in the container"
    values = {**PLAIN, **mcp_values(headless.config.format, answered)}
    path = f"{STATE}/{headless.config.path}"
    setup = "\n".join([f"printf '%s' {shlex.quote(render(headless.config.content, values))} > {shlex.quote(path)}",
                       *(written(f"{STATE}/{name}", render(content, values)) for name, content in headless.files)])
    line = {**PLAIN, "entry": entry, "runtime": runtime, "prompt": shlex.quote(prompt), "config": shlex.quote(path)}
    variables = [f"{name}={shlex.quote(render(value, PLAIN))}" for name, value in headless.environment]
    return Launch(setup, " ".join([*variables, *(render(part, line) for part in headless.command)]))


def written(path: str, content: str) -> str:
    """A shell line that writes one of the agent's other files, its folder made first."""
    return f"mkdir -p {shlex.quote(path.rsplit('/', 1)[0])} && printf '%s' {shlex.quote(content)} > {shlex.quote(path)}"


def folders(agent: AgentDeclaration) -> dict[str, str]:
    return {name: render(value, PLAIN) for name, value in agent.launch.folders}


IN_CONTAINER = {name: spec for name, spec in load_specs().items() if spec.launch is not None}
LAUNCHES = {name: functools.partial(render_launch, spec) for name, spec in IN_CONTAINER.items()}
# Every container agent's folders for each of them, as one environment (each ignores the others').
ENVIRONMENT = {"HOME": f"{STATE}/home", **{k: v for spec in IN_CONTAINER.values() for k, v in folders(spec).items()}}


def prepare_command() -> str:
    """The agent's folders on its mount, and the forwarder started in the background."""
    return f"mkdir -p {' '.join(ENVIRONMENT.values())}\n{FORWARDER}"  # two lines: `a && b &` would put both behind


def run_command(launch: Launch) -> str:
    """stdin closed (codex exec reads more prompt from an open stdin), stdout and stderr kept; its
    process group (the wall clock's `timeout` and all under it) written first, for stop_command."""
    return f"cut -d' ' -f5 /proc/$$/stat > {AGENT_GROUP}\n{launch.command} </dev/null > {TRANSCRIPT} 2> {STDERR}"


def stop_command() -> str:
    """The agent stopped as its wall clock would stop it: TERM to its process group, which `timeout`
    passes on and follows with KILL 5 s later (its group written once its command has started)."""
    return (f"for i in $(seq 100); do [ -s {AGENT_GROUP} ] && break; sleep 0.1; done\n"
            f"kill -TERM -- -$(cat {AGENT_GROUP})")
