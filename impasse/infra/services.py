"""The task's services as an environment brings them up: sidecar containers on a private network
(a download mirror), and local services started inside the agent's container (a database, a TLS
endpoint), each waited for on its port."""

from __future__ import annotations

import contextlib
import os
import shlex
from collections.abc import Iterator

import docker
import docker.errors

from impasse.catalog.conditions import Condition
from impasse.catalog.tasks import Service
from impasse.infra.sandbox import Sandbox

SERVICE_WAIT_SECONDS = 15


class EnvironmentSetupError(RuntimeError):
    """The environment could not be brought into the state the condition asks for (here: a service
    of the task did not come up)."""


def extra_hosts(condition: Condition) -> dict[str, str]:
    return {s.host: "127.0.0.1" for s in condition.task.services("tls") if s.host != "127.0.0.1"}


def active_sidecars(condition: Condition) -> list[Service]:
    return [] if condition.omitted("download") else condition.task.services("download")


def active_local_services(condition: Condition) -> list[Service]:
    services = [s for s in condition.task.services() if s.kind == "local"]
    if condition.omitted("service"):
        services = [s for s in services if s.role != "service"]
    return services


@contextlib.contextmanager
def private_network(api: docker.DockerClient, name: str, labels: dict) -> Iterator[str]:
    """An internal bridge: containers on it reach each other and nothing else."""
    network = api.networks.create(name, driver="bridge", internal=True,
                                  labels={"impasse": "1", "impasse.pid": str(os.getpid()), **labels})
    try:
        yield network.name
    finally:
        with contextlib.suppress(docker.errors.APIError):
            network.remove()


def start_sidecar(api: docker.DockerClient, image: str, service: Service, network: str, labels: dict):
    return api.containers.run(
        image, command=["sh", "-c", service.command], detach=True, user="0:0", init=True,
        network=network, labels={"impasse": "1", "impasse.pid": str(os.getpid()),
                                 "impasse.sidecar": service.name, **labels},
        cap_drop=["ALL"], security_opt=["no-new-privileges"], pids_limit=64, mem_limit="256m",
        networking_config={network: api.api.create_endpoint_config(aliases=[service.host])})


# Root's Python in the agent's container, isolated and without `site`: site-packages' `.pth` files may
# put the work tree on the path (an editable install), and `sitecustomize` is imported from the path,
# so a plain `python3` would run a module the agent wrote, as root.
ROOT_PYTHON = "python3 -I -S"


def command_of(service: Service, condition: Condition) -> str:
    cert = "expired" if condition.card.inject.tls_cert == "expired" else "server"
    command = service.command.replace("{cert}", cert)
    return ROOT_PYTHON + command.removeprefix("python3") if command.startswith("python3 ") else command


def start_local_service(box: Sandbox, service: Service, condition: Condition) -> None:
    command = command_of(service, condition)
    box.api.api.exec_start(box.api.api.exec_create(
        box.id, ["sh", "-c", f"exec {command} >/dev/null 2>&1"], user="0:0")["Id"], detach=True)


def wait_for_ports(box: Sandbox, services: list[Service], host_of=lambda s: "127.0.0.1") -> None:
    for service in services:
        check = (f"import socket,time\nfor _ in range({SERVICE_WAIT_SECONDS * 10}):\n"
                 f"    s=socket.socket(); s.settimeout(0.5)\n"
                 f"    if s.connect_ex(({host_of(service)!r},{service.port}))==0: raise SystemExit(0)\n"
                 f"    s.close(); time.sleep(0.1)\nraise SystemExit(1)\n")
        if box.exec_root(f"{ROOT_PYTHON} -c {shlex.quote(check)}", timeout=SERVICE_WAIT_SECONDS + 10).exit_code:
            raise EnvironmentSetupError(f"service {service.name} did not come up on port {service.port}")


# The processes listening on a port, found through /proc (no tool of the image's is assumed), stopped.
STOP_LISTENER = """import os, signal, sys, time
port = int(sys.argv[1])
inodes = set()
for table in ("/proc/net/tcp", "/proc/net/tcp6"):
    try:
        rows = open(table).read().splitlines()[1:]
    except OSError:
        continue
    for row in rows:
        f = row.split()
        if int(f[1].rsplit(":", 1)[1], 16) == port and f[3] == "0A":
            inodes.add("socket:[%s]" % f[9])
for pid in filter(str.isdigit, os.listdir("/proc")):
    try:
        if any(os.readlink("/proc/%s/fd/%s" % (pid, fd)) in inodes for fd in os.listdir("/proc/%s/fd" % pid)):
            os.kill(int(pid), signal.SIGTERM)
    except OSError:
        pass
for _ in range(50):
    import socket
    s = socket.socket()
    if s.connect_ex(("127.0.0.1", port)):
        sys.exit(0)
    s.close()
    time.sleep(0.1)
sys.exit(1)
"""


def restart_local_services(box: Sandbox, live: Condition, control: Condition) -> list[str]:
    """The task's local services as the control condition runs them, in the live container: each one
    the blocked condition left out started, each one it started otherwise (on an expired certificate)
    stopped and started again. The names of those it changed."""
    running = {s.name: command_of(s, live) for s in active_local_services(live)}
    changed = [s for s in active_local_services(control) if running.get(s.name) != command_of(s, control)]
    for service in changed:
        if service.name in running:
            stopped = box.exec_root(f"{ROOT_PYTHON} -c {shlex.quote(STOP_LISTENER)} {service.port}", timeout=30)
            if stopped.exit_code != 0:
                raise EnvironmentSetupError(f"service {service.name} on port {service.port} did not stop")
        start_local_service(box, service, control)
    wait_for_ports(box, changed)
    return [s.name for s in changed]
