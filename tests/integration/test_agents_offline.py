"""No outbound connection attempt from an external agent, checked: each agent's whole run, under
several cards, with a DNS sink inside the container that logs every query and answers NXDOMAIN
(resolv.conf pointing at it; it passes a query on to Docker's own DNS where a card's private
network has one, for the sidecars' names). Every name an agent looks up must be one the task's own commands look
up (the same policy's run under impasse's own loop, with the same sink, says which); the relay's
log must hold only model calls.

The sink binds 127.0.0.1:53 as the container's capability-less root, which the namespaced sysctl
`net.ipv4.ip_unprivileged_port_start=0` allows; both it and the resolv.conf are this test's, added
through the run's container options, never a production run's."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from impasse.infra import environment
from impasse.runs.runner import RunSpec, execute

from .containers import labelled

pytestmark = pytest.mark.docker
SINK_DIR = "/impasse-dns"
LOG = "queries.jsonl"
SINK = r'''
import json, socket, sys, time
UPSTREAM = ("127.0.0.11", 53)  # Docker's own DNS, there only on a card's private network (its sidecars' names)
log = open(sys.argv[1], "a", buffering=1)
sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
sock.bind(("127.0.0.1", 53))
print("listening", flush=True)


def upstream(query):
    ask = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    ask.settimeout(1)
    try:
        ask.sendto(query, UPSTREAM)
        return ask.recv(4096)
    except OSError:  # no such server (no network at all): refused at once
        return None
    finally:
        ask.close()


while True:
    query, peer = sock.recvfrom(4096)
    labels, i = [], 12
    while i < len(query) and query[i]:
        labels.append(query[i + 1:i + 1 + query[i]].decode("ascii", "replace"))
        i += query[i] + 1
    qtype = int.from_bytes(query[i + 1:i + 3], "big") if i + 3 <= len(query) else 0
    log.write(json.dumps({"name": ".".join(labels), "type": qtype, "time": time.time()}) + "\n")
    # Docker's answer where there is one; else the question echoed back as NXDOMAIN (a response,
    # recursion desired and available, no answer)
    answer = upstream(query)
    sock.sendto(answer or query[:2] + (0x8183).to_bytes(2, "big") + query[4:6] + bytes(6) + query[12:i + 5], peer)
'''
# What a model call is in relay.jsonl; anything else (a refused request, another path) is not
MODEL_PATHS = ("/v1/messages", "/v1/messages?beta=true", "/v1/messages/count_tokens",
               "/v1/messages/count_tokens?beta=true", "/v1/responses", "/responses")
MODEL_KINDS = ("step", "poll", "retry", "stop", "side", "count_tokens")
# Every card but oom_kill (its commands' own cgroup is tests/integration/test_commands_cgroup.py's)
RUNS = [("feedsync-currency", card) for card in
        ("none", "chown_root", "network_down_download", "tls_cert_invalid", "service_down")] + \
       [("invoicekit-tax-rounding", card) for card in
        ("removed_dependency", "read_only_fs", "disk_full", "missing_secret", "flaky_sandbox")] + \
       [("logpipe-distinct", "missing_binary"), ("relnotes-breaking-bump", "git_index_lock")]
# Runs whose oracle gets as far as the tests, which fetch from the task's own host (under chown_root
# it escalates at the refused edit first)
FETCHING = {("feedsync-currency", card) for card in ("none", "network_down_download", "tls_cert_invalid",
                                                     "service_down")}


@pytest.fixture
def dns_sink(tmp_path, monkeypatch):
    """Every run of this test gets the sink: its script and log folder and a resolv.conf naming it
    mounted in, the sysctl set, the sink started once the environment is up. Returns the host's
    log folder."""
    folder = tmp_path / "dns"
    folder.mkdir()
    folder.chmod(0o777)  # the container's root has no CAP_DAC_OVERRIDE
    (folder / "sink.py").write_text(SINK)
    resolv = tmp_path / "resolv.conf"
    resolv.write_text("nameserver 127.0.0.1\noptions attempts:1 timeout:1\n")
    resolv.chmod(0o644)
    mounts = {str(folder): {"bind": SINK_DIR, "mode": "rw"}, str(resolv): {"bind": "/etc/resolv.conf", "mode": "ro"}}
    run_options = environment.docker_run_options

    def with_sysctl(condition):
        options, workspace_tmpfs = run_options(condition)
        return {**options, "sysctls": {"net.ipv4.ip_unprivileged_port_start": "0"}}, workspace_tmpfs

    start, set_up = environment.start_containers, environment.set_up

    def with_mounts(stack, api, staged, labels, grading, volumes=None, tmpfs=None, commands=False):
        mounted = volumes if grading else {**(volumes or {}), **mounts}  # the grader's container keeps its own
        return start(stack, api, staged, labels, grading, mounted, tmpfs, commands)

    def with_sink(containers, workspace_tar):
        if workspace_tar is None:  # before the services: a sidecar's name is looked up through it
            # the folder outlives each run: the last run's "listening" must not be read before this
            # sink's shell truncates the file
            (folder / "sink.out").unlink(missing_ok=True)
            # waited for, not slept on: on a busy machine the sink's interpreter takes seconds to start
            started = containers.box.exec_root(
                f"python3 -I -S {SINK_DIR}/sink.py {SINK_DIR}/{LOG} > {SINK_DIR}/sink.out 2>&1 & "
                f"for _ in $(seq 600); do grep -q listening {SINK_DIR}/sink.out && break; sleep 0.1; done; "
                f"cat {SINK_DIR}/sink.out")
            assert "listening" in started.output, started.output
        env = set_up(containers, workspace_tar)
        (folder / LOG).write_text("")  # the set-up's own lookups (waiting for a sidecar) are not the run's
        return env

    monkeypatch.setattr(environment, "docker_run_options", with_sysctl)
    monkeypatch.setattr(environment, "start_containers", with_mounts)
    monkeypatch.setattr(environment, "set_up", with_sink)
    return folder


def queried(folder: Path) -> set[str]:
    log = folder / LOG
    names = {json.loads(line)["name"] for line in log.read_text().splitlines()} if log.exists() else set()
    log.unlink(missing_ok=True)
    return names


def agents_under(card: str) -> tuple[str, ...]:
    """impasse first, then Claude Code and Codex (every card: the cgroup of their commands carries
    flaky_sandbox's hold)."""
    return ("impasse", "claude-code", "codex")


@pytest.mark.parametrize("task,card", RUNS)
def test_no_agent_looks_up_a_name_the_tasks_own_commands_do_not(api, tmp_path, dns_sink, task, card):
    seen = {}
    for agent in agents_under(card):
        result = execute(api, RunSpec("scripted:oracle", card, task, budget=8, out=tmp_path / agent, agent=agent))
        assert result.outcome in ("resolved", "escalated"), agent
        assert labelled(api, result.path) == []
        seen[agent] = queried(dns_sink)
        if agent != "impasse":
            relay = [json.loads(line) for line in (result.path / "relay.jsonl").read_text().splitlines()]
            assert relay and all(r["path"] in MODEL_PATHS and r["kind"] in MODEL_KINDS for r in relay), relay
    if (task, card) in FETCHING:  # the sink does see lookups: the task's own tests fetch from its host
        assert seen["impasse"] == {"data.impasse.test"}
    for agent in agents_under(card)[1:]:
        assert seen[agent] <= seen["impasse"], f"{agent} looked up {sorted(seen[agent] - seen['impasse'])}"
