"""A labelled, hardened container and a typed `exec` on it.

Every container impasse creates carries the label `impasse=1` (plus run id, task and condition), runs
`sleep <ttl>` under an init as a last-resort lifetime, and is removed synchronously when the `with`
block ends, whatever happened inside it. `impasse gc` and each matrix start reap what a killed process
left behind."""

from __future__ import annotations

import dataclasses
import io
import os
import shlex
import tarfile
import time
from collections.abc import Iterator
from contextlib import closing, contextmanager, suppress
from dataclasses import dataclass, field

import docker
import docker.errors
from docker.models.containers import Container

from impasse.infra.bounded_output import OUTPUT_TAIL, BoundedOutput
from impasse.infra.piped import STDOUT, exit_code, frames, run_with_stdin
from impasse.infra.sensors import PIDS_NOW_FILES, cgroup_file

AGENT_USER = "1000:1000"
WORKDIR = "/workspace"
TTL_SECONDS = 4 * 3600
HOST_GRACE_SECONDS = 15
HARDENING = {
    "cap_drop": ["ALL"],
    "security_opt": ["no-new-privileges"],
    "pids_limit": 512,
    "mem_limit": "2g",
    "memswap_limit": "2g",
}


class SandboxUnavailable(RuntimeError):
    """The container or the engine is gone: an infrastructure failure, never agent-visible output."""


class TooLarge(SandboxUnavailable):  # a folder read out of a container was larger than the reader takes
    pass


@dataclass(frozen=True)
class ExecResult:
    output: str
    exit_code: int
    duration: float
    truncated_bytes: int = 0
    timed_out: bool = False


@dataclass
class SandboxSpec:
    image: str
    labels: dict[str, str] = field(default_factory=dict)
    network: str | None = "none"
    environment: dict[str, str] = field(default_factory=dict)
    run_options: dict = field(default_factory=dict)  # extra docker run options from a blocker card


def file_tar(path: str, content: str | bytes) -> bytes:
    """A one-file tar owned by the agent, to write into a container (`Sandbox.write_tar`)."""
    stream, data = io.BytesIO(), content.encode("utf-8") if isinstance(content, str) else content
    with tarfile.open(fileobj=stream, mode="w") as tar:
        info = tarfile.TarInfo(path)
        info.size, info.mode, info.uid, info.gid = len(data), 0o644, 1000, 1000
        tar.addfile(info, io.BytesIO(data))
    return stream.getvalue()


class Sandbox:
    def __init__(self, api: docker.DockerClient, container: Container) -> None:
        self.api = api
        self.container = container

    @property
    def id(self) -> str:
        return self.container.id

    def exec(self, command: str, timeout: int = 120, user: str = AGENT_USER,
             workdir: str = WORKDIR, environment: dict[str, str] | None = None,
             keep_bytes: int | None = None) -> ExecResult:
        """Run `bash -c command` inside, killed by `timeout -k` *in the container* (a host-side
        timeout would only kill the client), output streamed into a bounded buffer. stderr is joined to
        stdout in the container, on one pipe, as a terminal shows them: docker's two separate pipes
        would interleave them in whatever order its reader happened to drain them."""
        wrapped = ["sh", "-c", 'exec "$@" 2>&1', "sh", "timeout", "-k", "5", str(timeout), "bash", "-c", command]
        result = self.exec_argv(wrapped, user=user, workdir=workdir, environment=environment,
                                host_timeout=timeout + HOST_GRACE_SECONDS, keep_bytes=keep_bytes)
        if result.exit_code in (124, 137) and result.duration >= timeout:
            return dataclasses.replace(result, timed_out=True)
        return result

    def exec_root(self, command: str, timeout: int = 120, keep_bytes: int | None = None) -> ExecResult:
        return self.exec(command, timeout=timeout, user="0:0", workdir="/", keep_bytes=keep_bytes)

    def exec_argv(self, argv: list[str], user: str, workdir: str,
                  environment: dict[str, str] | None = None, host_timeout: float = 135,
                  keep_bytes: int | None = None) -> ExecResult:
        """`keep_bytes`: that much of the head instead of the agent-sized cut (the grader's reports)."""
        start = time.monotonic()
        try:
            exec_id = self.api.api.exec_create(self.container.id, argv, user=user, workdir=workdir,
                                               environment=environment or {})["Id"]
            buffer = BoundedOutput(keep_bytes, OUTPUT_TAIL) if keep_bytes else BoundedOutput()
            cut = False
            with closing(frames(self.api.api, exec_id)) as stream:
                for _, chunk in stream:
                    buffer.feed(chunk)
                    if cut := time.monotonic() - start > host_timeout:
                        break
            # A stream that ended means the process did: a busy daemon may take seconds to record its
            # exit code, and reading "still running" then would turn a probe's answer into -1.
            exit_code = self.exit_code(exec_id, wait=2.0 if cut else 30.0)
        except (docker.errors.APIError, docker.errors.DockerException, OSError) as err:
            raise SandboxUnavailable(f"exec failed in {self.container.short_id}: {err}") from err
        if exit_code is None:
            self.ensure_running()
            exit_code = -1
        return ExecResult(output=buffer.text(), exit_code=exit_code,
                          duration=time.monotonic() - start, truncated_bytes=buffer.dropped)

    def owner(self, path: str) -> str | None:
        """The file's owner as an exec's `user`; None when unknown."""
        return owner_of(self.exec_root(f"stat -c %u {shlex.quote(path)}").output.strip())

    def ensure_running(self) -> None:
        try:
            self.container.reload()
        except docker.errors.NotFound as err:
            raise SandboxUnavailable(f"container {self.container.short_id} is gone") from err
        if self.container.status != "running":
            raise SandboxUnavailable(f"container {self.container.short_id} is {self.container.status}")

    def read_tar(self, directory: str, excludes: tuple[str, ...] = (), user: str = "0:0",
                 limit: int = 256 * 1024**2, one_file_system: bool = False) -> tuple[bytes, list[str]]:
        """A tar of a folder, streamed out of `tar -c` in the container (unlike `docker cp`, this sees
        tmpfs mounts and works on read-only containers), and what tar said it could not read.
        `one_file_system`: the folder's own file system only, not what is mounted inside it."""
        skip = " ".join(f"--exclude={shlex.quote(e)}" for e in excludes)
        if one_file_system:  # what is mounted below it, left out by name (tar would still open the mount point)
            skip += f" --one-file-system {mounted_below(directory, '--exclude=./%s')}"
        exec_id = self.api.api.exec_create(
            self.container.id, ["sh", "-c", f"tar -C {shlex.quote(directory)} {skip} -cf - ."], user=user)["Id"]
        data, warnings = bytearray(), bytearray()
        with closing(frames(self.api.api, exec_id)) as stream:
            for kind, payload in stream:
                if kind == STDOUT:
                    data += payload
                else:
                    warnings += payload[:max(0, 4096 - len(warnings))]
                if len(data) > limit:
                    raise TooLarge(f"{directory} is larger than {limit // 1024**2} MiB; not captured")
        if self.exit_code(exec_id) not in (0, 1, 2):  # 1, 2: some files changed or unreadable
            raise SandboxUnavailable(f"tar of {directory} failed in {self.container.short_id}")
        return bytes(data), [w for w in warnings.decode(errors="replace").splitlines() if w.strip()][:20]

    def write_tar(self, directory: str, data: bytes, user: str = AGENT_USER) -> None:
        """Unpack a tar into a folder as `user` (files end up owned by it), fed through the exec's
        stdin (see read_tar)."""
        code, output = self.pipe(["tar", "-C", directory, "--no-same-owner", "-xmf", "-"], data, user)
        if code != 0:
            raise SandboxUnavailable(f"unpacking into {directory} failed in {self.container.short_id}: "
                                     f"{output.strip()[-300:]}")

    def pipe(self, argv: list[str], data: bytes, user: str, keep: int = 64 * 1024) -> tuple[int | None, str]:
        """Run `argv` with `data` on its stdin: its exit code and the last `keep` bytes of its output."""
        try:
            return run_with_stdin(self.api.api, self.container.id, argv, data, user, keep=keep)
        except (docker.errors.APIError, OSError) as err:
            raise SandboxUnavailable(f"{argv[0]} with piped input failed in {self.container.short_id}: {err}") from err

    def writable_bytes(self) -> int:
        """Bytes in the container's writable layer (the engine's SizeRw; a few ms). There is no
        storage quota without xfs project quotas, so the harness watches this instead."""
        try:
            info = self.api.api._result(self.api.api._get(
                self.api.api._url("/containers/{0}/json", self.container.id), params={"size": 1}), True)
        except docker.errors.APIError as err:
            raise SandboxUnavailable(f"container {self.container.short_id} is gone: {err}") from err
        return int(info.get("SizeRw") or 0)

    def exit_code(self, exec_id: str, wait: float = 10.0) -> int | None:
        return exit_code(self.api.api, exec_id, wait)


def container_options(spec: SandboxSpec) -> dict:
    options = {**HARDENING, **spec.run_options}
    options.update(
        image=spec.image,
        command=["sleep", str(TTL_SECONDS)],
        detach=True,
        init=True,
        # The container's own process (the TTL sleep under init) belongs to root, so the agent can
        # neither kill it nor take the sandbox down with `kill -9 -1`; the agent works via exec.
        user="0:0",
        working_dir=WORKDIR,
        labels={"impasse": "1", "impasse.pid": str(os.getpid()), **spec.labels},
        environment={"HOME": "/home/agent", **spec.environment},
    )
    if spec.network:
        options["network"] = spec.network
    return options


@contextmanager
def open_sandbox(api: docker.DockerClient, spec: SandboxSpec) -> Iterator[Sandbox]:
    container = api.containers.run(**container_options(spec))
    try:
        wait_for_own_process(container)
        yield Sandbox(api, container)
    finally:
        remove_container(container)


OWN_PROCESSES = 2  # the init and the TTL sleep it starts
START_PATIENCE = 60.0  # seconds: a loaded engine can take long to start a container's process


def wait_for_own_process(container: Container, patience: float = START_PATIENCE) -> None:
    """The engine says a container started once its init runs; the init forks the TTL sleep after
    that. Until it has, a pids limit lowered on the container (flaky_sandbox's hold) fails that fork,
    and the init exits and takes the container with it: on a busy machine the gap is long enough to
    be met. So a sandbox is handed out only once its own process runs."""
    deadline = time.monotonic() + patience
    while own_processes(container) < OWN_PROCESSES:
        if time.monotonic() > deadline:
            raise SandboxUnavailable(f"container {container.short_id} did not start its process "
                                     f"in {patience:.0f} s")
        time.sleep(0.01)


def own_processes(container: Container) -> int:
    """The processes in the container: its pids cgroup's count, read on the host; the engine's `top`
    where the cgroup is not on this host (a remote engine)."""
    counted = cgroup_file(container.id, PIDS_NOW_FILES)
    if counted is not None:
        with suppress(OSError, ValueError):
            return int(counted.read_text())
    try:
        return len(container.top().get("Processes") or [])
    except docker.errors.APIError as err:  # not running: it exited, or was removed
        raise SandboxUnavailable(f"container {container.short_id} stopped as it started: {err}") from err


REMOVAL_PATIENCE = 120.0  # seconds: a loaded engine can take long to kill and unmount a container


def remove_container(container: Container, patience: float = REMOVAL_PATIENCE) -> None:
    """Force-removed, and gone when this returns. The engine answers 409 while a removal is under way
    (someone else's, or one it gave up on half-way) and 5xx when it could not kill or unmount in time:
    both are waited out and tried again, so nothing of a run outlives it."""
    deadline = time.monotonic() + patience
    while True:
        try:
            container.remove(force=True, v=True)
            return
        except docker.errors.NotFound:
            return
        except docker.errors.APIError as err:
            if err.status_code != 409 and not err.is_server_error():
                raise
            if time.monotonic() > deadline:
                raise
        time.sleep(0.5)


def owner_of(uid: str) -> str | None:
    """`stat -c %u`'s answer as the `user` of an exec: `uid:uid` (each user has its own group here)."""
    return f"{uid}:{uid}" if uid.isdigit() else None


def mounted_below(directory: str, form: str) -> str:
    """A shell substitution giving each mount below `directory` (its path relative to it, from the
    container's own mountinfo) as `form`, a printf format (`--exclude=./%s`), space-separated: what is
    mounted inside a folder (an agent's own, on a tmpfs) is not the folder's."""
    below = shlex.quote(directory.rstrip("/") + "/")
    return (f"$(awk -v d={below} 'index($5, d) == 1 {{printf \"{form} \", substr($5, length(d) + 1)}}' "
            "/proc/self/mountinfo)")
