"""The pinned agents for real: fetched once (npm, checked against agents.lock) into the host's
cache, then run from the read-only mount inside impasse's hardened container — as the agent user,
with no network and no Node — together with the MCP server and the model forwarder beside them."""

from __future__ import annotations

import hashlib
import json
import os
import shlex
import socketserver
import tempfile
import threading
from pathlib import Path

import pytest

from impasse.agents.install import MOUNT_POINT, ensure_agent
from impasse.agents.pins import pin_of
from impasse.catalog.cards import get_card
from impasse.catalog.conditions import make_condition
from impasse.infra.environment import open_environment
from impasse.infra.layers import stage
from impasse.infra.sandbox import SandboxSpec, open_sandbox
from impasse.runs.runner import default_task

from .containers import labelled, own_id

pytestmark = pytest.mark.docker

RELAY_DIR = "/impasse-relay"  # where the test's unix socket is mounted


@pytest.fixture(scope="module")
def claude():
    return ensure_agent("claude-code")


@pytest.fixture(scope="module")
def codex():
    return ensure_agent("codex")


STATE = "/agent-state"  # the agent's own writable mount, off what the cards take away (not under /tmp:
# codex refuses to make its helper links under a temporary folder)
STATE_ENV = {"HOME": f"{STATE}/home", "CODEX_HOME": f"{STATE}/codex", "CLAUDE_CONFIG_DIR": f"{STATE}/claude"}


def agent_box(api, image: str, run_id: str, volumes: dict, read_only: bool = False):
    options = {"volumes": volumes, "tmpfs": {STATE: "rw,size=64m,uid=1000,gid=1000"},
               **({"read_only": True} if read_only else {})}
    return open_sandbox(api, SandboxSpec(image=image, labels={"impasse.run_id": run_id}, run_options=options))


@pytest.mark.parametrize("read_only", [False, True], ids=["writable-root", "read-only-root"])
def test_the_binaries_run_as_the_agent_user_with_no_network(api, base_image, claude, codex, read_only):
    run_id = own_id(f"t-agents-version-{int(read_only)}")
    for agent, expected in ((claude, "2.1.332 (Claude Code)"), (codex, "codex-cli 0.171.0")):
        with agent_box(api, base_image, run_id, agent.volumes(), read_only) as box:
            assert box.exec("id -u").output.strip() == "1000"
            assert box.exec("ls /sys/class/net").output.split() == ["lo"]
            assert box.exec("command -v node nodejs").exit_code != 0  # nothing but the binary itself
            box.exec(f"mkdir -p {' '.join(STATE_ENV.values())}")
            version = box.exec(f"{agent.entry} --version", timeout=60, environment=STATE_ENV)
            assert (version.exit_code, version.output.strip()) == (0, expected)  # no warning either
            write = box.exec(f"touch {MOUNT_POINT}/x")
            assert write.exit_code != 0 and "Read-only file system" in write.output
    assert labelled(api, run_id) == []


def test_codex_keeps_its_helper_links_in_its_home_on_the_state_mount(api, base_image, codex):
    with agent_box(api, base_image, "t-agents-codex-home", codex.volumes(), read_only=True) as box:
        box.exec(f"mkdir -p {' '.join(STATE_ENV.values())}")
        assert box.exec(f"{codex.entry} --version", environment=STATE_ENV).exit_code == 0
        links = box.exec(f"ls {STATE}/codex/tmp/arg0-linux/*/").output.split()
        assert {"apply_patch", "codex-linux-sandbox"} <= set(links)
        assert box.exec(f"{codex.entry} --version").output.startswith("WARNING: proceeding, even though we "
                                                                     "could not create PATH aliases")


def test_the_cached_files_are_the_locked_bytes(claude, codex):
    for agent in (claude, codex):
        pin = pin_of(agent.spec)
        for pinned in pin.files:
            with (agent.folder / pinned.path).open("rb") as cached:
                assert hashlib.file_digest(cached, "sha256").hexdigest() == pinned.sha256, pinned.path


def test_codex_finds_its_ripgrep_beside_it(api, base_image, codex):
    with agent_box(api, base_image, "t-agents-rg", codex.volumes()) as box:
        rg = box.exec(f"{MOUNT_POINT}/codex-path/rg --version")
        assert rg.exit_code == 0 and rg.output.startswith("ripgrep ")


def test_the_mcp_server_runs_on_the_images_python(api, base_image, claude):
    messages = [{"jsonrpc": "2.0", "id": 0, "method": "server/discover"},
                {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18"}},
                {"jsonrpc": "2.0", "method": "notifications/initialized"},
                {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                 "params": {"name": "escalate_to_human", "arguments": {"reason": "src/ is owned by root"}}}]
    lines = "\n".join(json.dumps(m) for m in messages) + "\n"
    command = (f"printf '%s' {shlex.quote(lines)} | IMPASSE_MCP_LOG=/tmp/calls.jsonl "
               f"python3 -I -S {MOUNT_POINT}/impasse_mcp.py && echo ---LOG && cat /tmp/calls.jsonl")
    with agent_box(api, base_image, "t-agents-mcp", claude.volumes()) as box:
        assert box.exec("python3 --version").output.startswith("Python 3.11")
        result = box.exec(command)
    replies, log = result.output.split("---LOG\n")
    replies = [json.loads(line) for line in replies.splitlines()]
    assert [r["id"] for r in replies] == [0, 1, 2]
    assert replies[0]["error"]["code"] == -32601
    assert replies[1]["result"]["protocolVersion"] == "2025-06-18"
    assert replies[2]["result"]["isError"] is False
    assert json.loads(log)["arguments"] == {"reason": "src/ is owned by root"}


class Upper(socketserver.BaseRequestHandler):
    def handle(self) -> None:
        data = bytearray()
        while chunk := self.request.recv(65536):
            data += chunk
        self.request.sendall(bytes(data).upper())


class UnixServer(socketserver.ThreadingMixIn, socketserver.UnixStreamServer):
    daemon_threads = True


def test_the_forwarder_reaches_a_host_socket_from_a_container_without_network(api, base_image, claude):
    with tempfile.TemporaryDirectory(prefix="impasse-relay-") as relay:
        Path(relay).chmod(0o755)
        path = Path(relay) / "model.sock"
        server = UnixServer(str(path), Upper)
        path.chmod(0o666)  # the agent user connects to it
        threading.Thread(target=server.serve_forever, daemon=True).start()
        volumes = {**claude.volumes(), relay: {"bind": RELAY_DIR, "mode": "rw"}}
        client = ("import socket; s = socket.create_connection(('127.0.0.1', 8765)); "
                  "s.sendall(b'post /v1/messages'); s.shutdown(socket.SHUT_WR); "
                  "print(b''.join(iter(lambda: s.recv(4096), b'')).decode())")
        try:
            with agent_box(api, base_image, "t-agents-forwarder", volumes) as box:
                started = box.exec(f"python3 -I -S {MOUNT_POINT}/model_forwarder.py --port 8765 "
                                   f"--socket {RELAY_DIR}/model.sock > /tmp/fwd.log 2>&1 & "
                                   "for i in $(seq 50); do grep -q listening /tmp/fwd.log && break; sleep 0.1; done; "
                                   f"python3 -c {shlex.quote(client)}")
                assert started.output.strip().endswith("POST /V1/MESSAGES"), started.output
                assert box.exec("ls /sys/class/net").output.split() == ["lo"]
        finally:
            server.shutdown()
            server.server_close()


@pytest.mark.parametrize("card_id", ["chown_root", "read_only_fs", "disk_full"])
def test_under_a_card_the_agent_runs_and_writes_its_state_while_the_card_still_holds(api, claude, codex, card_id,
                                                                                     tmp_path):
    """The condition's own container (open_environment), the agents' mount and a state folder from the
    host added: the binaries answer and their state is written, and the card's own probe still finds
    the blocker in place for the agent."""
    card = get_card(card_id)
    staged = stage(api, make_condition(default_task(card), card))
    state = tmp_path / "state"
    state.mkdir()
    os.chown(state, 1000, 1000)  # the agent user's own folder, as a run's would be
    volumes = {**claude.volumes(), str(codex.folder): {"bind": "/opt/impasse-codex", "mode": "ro"},
               str(state): {"bind": STATE, "mode": "rw"}}
    run_id = own_id(f"t-agents-card-{card_id}")
    with open_environment(api, staged, {"impasse.run_id": run_id}, volumes=volumes) as env:
        box = env.box
        assert box.exec(f"mkdir -p {' '.join(STATE_ENV.values())}").exit_code == 0
        version = box.exec(f"{claude.entry} --version && /opt/impasse-codex/bin/codex --version", environment=STATE_ENV)
        assert version.exit_code == 0, version.output
        assert version.output.split("\n")[:2] == ["2.1.332 (Claude Code)", "codex-cli 0.171.0"]
        # 4 MB of the agent's own state: more than disk_full leaves, on a root read_only_fs makes read-only
        assert box.exec(f"head -c 4194304 /dev/zero > {STATE}/transcript && echo ok > {STATE}/mcp_calls.jsonl",
                        environment=STATE_ENV).exit_code == 0
        assert env.probe() is True, f"{card_id} no longer holds for the agent's own commands"
    assert (state / "mcp_calls.jsonl").read_text() == "ok\n"  # on the host, after the container is gone
    assert (state / "transcript").stat().st_size == 4 * 2**20
    assert labelled(api, run_id) == []
