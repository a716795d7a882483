"""The live environment of one episode (or one grading): the agent's hardened container on the
condition's image, the task's services and sidecars unless the blocker takes them away, the card's
docker options and root setup, all labelled and all removed when the `with` block ends.
"""

from __future__ import annotations

import contextlib
import shlex
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

import docker
import docker.errors
import docker.utils

from impasse.catalog.conditions import Condition
from impasse.catalog.tasks import test_config_files
from impasse.infra.agent_git import base_tree_of
from impasse.infra.busy_gate import BUSY, Rank
from impasse.infra.cgroups import Commands
from impasse.infra.layers import ConditionImage
from impasse.infra.overlay import apply_overlay, overlaid_image
from impasse.infra.sandbox import (
    AGENT_USER,
    ExecResult,
    Sandbox,
    SandboxSpec,
    SandboxUnavailable,
    open_sandbox,
    owner_of,
    remove_container,
)
from impasse.infra.services import (
    EnvironmentSetupError,
    active_local_services,
    active_sidecars,
    extra_hosts,
    private_network,
    start_local_service,
    start_sidecar,
    wait_for_ports,
)

STATE = "/opt/impasse-state"  # seed workspace, pristine tests, base commit (see task.Dockerfile)


@dataclass
class LiveEnvironment:
    box: Sandbox
    staged: ConditionImage  # the condition and the image it runs on
    t0: float  # the clock at the end of setup (the kernel's, shared with the host): files the agent writes are newer
    owner: str  # uid:gid of /workspace after setup; the agent, without capabilities, cannot change it
    base: str  # the commit the agent starts from: the diff and "did it commit" are measured against it
    sidecars: list = field(default_factory=list)
    commands: Commands | None = None  # the agent's commands' own cgroup (infra/cgroups.py), where made
    base_tree: str = ""  # `git ls-tree -r` of the base commit as the episode started ("" when grading)

    @property
    def condition(self) -> Condition:
        return self.staged.condition

    def probe(self, run: Callable[[str, int], ExecResult] | None = None) -> bool | None:
        """Is the blocker still in place? None for the control, which has nothing to probe. `run`: how
        to ask as the agent (an episode's exec channel, which costs no exec); a plain exec if none."""
        if not self.condition.card.probe:
            return None
        # As the agent: the question is whether *it* can get past the blocker (and root holds no
        # capabilities here, so it could not switch to the agent to ask).
        run = run or (lambda command, timeout: self.box.exec(command, timeout=timeout))
        return run(probe_script(self.condition), 60).exit_code == 0

    def workspace_owner(self) -> str:
        return self.owner


def probe_script(condition: Condition) -> str:
    """The card's probe with what it needs to know of the task (its module, binary, secret, ports)."""
    return f"{exports(condition)}\n{condition.card.probe}"


def exports(condition: Condition) -> str:
    return "export " + " ".join(f"{k}={shlex.quote(v)}" for k, v in condition.script_env().items())


def workspace_owner(box: Sandbox) -> str:
    return box.owner("/workspace") or AGENT_USER


def docker_run_options(condition: Condition) -> tuple[dict, bool]:
    """Translate the card's docker_run into SDK options; True when /workspace must be populated
    because it is a fresh tmpfs."""
    options = dict(condition.card.inject.docker_run)
    workspace_tmpfs = options.pop("workspace_mount", None) == "tmpfs"
    size = options.pop("workspace_tmpfs_size", "16m")
    if workspace_tmpfs:
        options.setdefault("tmpfs", {})
        options["tmpfs"] = {**options["tmpfs"], "/workspace": f"rw,size={size},uid=1000,gid=1000,mode=1777"}
    memory = condition.task.requires.memory_mb
    if memory and "mem_limit" not in options:
        mem = f"{max(memory * 2, 512)}m"  # twice the specified working set, healthy under `none`
        options.update(mem_limit=mem, memswap_limit=mem)
    return options, workspace_tmpfs


def agent_environment(condition: Condition) -> dict[str, str]:
    if condition.omitted("secret"):
        return {}
    return {name: condition.task.project.secrets[name] for name in condition.task.requires.secrets}


def populate_seed(box: Sandbox, owner: str) -> None:
    """A fresh tmpfs workspace gets the starting workspace, unpacked as its owner: the harness holds
    no capabilities in the container, so it cannot chown. The seed is root's alone (for a generated
    task it is the project before the bug: the fix), so root streams it out and the owner unpacks it;
    sticky 1777 lets root's ballast in."""
    seed = box.read_tar(f"{STATE}/seed")[0]
    code, output = box.pipe(["sh", "-c", "tar -C /workspace --no-same-owner -xf - && chmod 1777 /workspace"],
                            seed, owner)
    if code != 0:
        raise EnvironmentSetupError(f"could not populate the workspace: {output[-300:]}")


UNPACK_FAILED = 97  # the exit code of put_worktree's script when the tar itself did not unpack


def put_worktree(box: Sandbox, owner: str, worktree_tar: bytes, test_paths: tuple[str, ...],
                 tmpfs: bool) -> None:
    """The grader's workspace: the agent's final work tree in place of the starting one (its .git
    stays as the condition made it), then the pristine tests put back over it — one exec, as the
    workspace's owner, with the tar on its stdin."""
    clear = "find /workspace -mindepth 1 -maxdepth 1 ! -name .git ! -name .ballast -exec rm -rf {} +"
    unpack = f"tar -C /workspace --no-same-owner -xmf - || exit {UNPACK_FAILED}"
    mode = "chmod 1777 /workspace && " if tmpfs else ""
    script = f"{clear}; {unpack}; {mode}{pristine_tests_script(test_paths)}"
    code, output = box.pipe(["sh", "-c", script], worktree_tar, owner)
    if code == UNPACK_FAILED:
        raise SandboxUnavailable(f"unpacking the work tree failed in {box.container.short_id}: {output[-300:]}")
    if code != 0:
        raise EnvironmentSetupError(f"could not restore the pristine tests: {output[-300:]}")


def start_facts(box: Sandbox, workspace_mount: str | None) -> tuple[str, str]:
    """Who owns /workspace and the base commit, as a container starts: facts of its image (and of the
    workspace's tmpfs, if any), so they are asked once per process in one exec and then remembered —
    the grader's fresh container of the same image asks nothing."""
    key = (box.container.attrs.get("Image", box.container.id), workspace_mount)
    if key in START_FACTS:
        return START_FACTS[key]
    answer = box.exec_root(f"stat -c %u /workspace && cat {STATE}/base_commit").output.split()
    owner = owner_of(answer[0]) if answer else None
    facts = (owner or AGENT_USER, answer[1] if len(answer) > 1 else "")
    if len(answer) == 2 and owner:  # a failed answer is not remembered for the next container
        if len(START_FACTS) > 1024:  # transient images (read_only_fs overlays) would pile up
            START_FACTS.clear()
        START_FACTS[key] = facts
    return facts


START_FACTS: dict[tuple[str, str | None], tuple[str, str]] = {}


def pristine_tests_script(test_paths: tuple[str, ...]) -> str:
    """Grading never trusts the tests as the agent left them: the test folders and every test
    configuration file are put back as they were, and one the agent added is removed — at the root,
    or a conftest.py in any folder above a test folder, which pytest loads for every test below it."""
    added = test_config_files(test_paths)
    folders = " ".join(shlex.quote(f"/workspace/{p}") for p in test_paths)
    return (f"rm -rf {folders} && for f in {' '.join(added)}; do [ -e {STATE}/pristine/$f ] "
            f"|| rm -rf /workspace/$f || exit 1; done && cp -r {STATE}/pristine/. /workspace/")


def run_root_setup(box: Sandbox, condition: Condition) -> None:
    script = condition.card.inject.root_setup
    if not script:
        return
    result = box.exec_root(f"{exports(condition)}\n{script}", timeout=120)
    if result.exit_code:
        raise EnvironmentSetupError(f"root setup of {condition.name} failed: {result.output[-500:]}")


@dataclass
class Containers:
    """An environment's containers up, nothing set up inside them yet."""

    box: Sandbox
    staged: ConditionImage
    owner: str  # of /workspace as the container starts: the workspace steps run as it
    base: str
    sidecars: list  # their containers
    workspace_tmpfs: bool
    overlay: bool  # a generated task's bug still to be applied in the container
    commands: Commands | None = None


@contextlib.contextmanager
def open_environment(api: docker.DockerClient, staged: ConditionImage, labels: dict[str, str],
                     workspace_tar: bytes | None = None, volumes: dict | None = None,
                     tmpfs: dict | None = None, commands: bool = False) -> Iterator[LiveEnvironment]:
    """Bring the condition up. With `workspace_tar` (grading), the workspace is replaced by it and
    the pristine tests are restored before the card's root setup runs. `volumes` and `tmpfs`
    (docker-py's forms) are mounted into the agent's container beside the card's own: an external
    agent's binaries and its own state. `commands`: the agent runs inside the container, so the
    card's limits go on a child cgroup of its commands, the container keeping the control's."""
    grading = workspace_tar is not None
    with contextlib.ExitStack() as stack:
        # A CPU burst: paced with the other runs' (busy_gate.py)
        with BUSY.held(Rank.GRADING if grading else Rank.START):
            containers = start_containers(stack, api, staged, labels, grading, volumes, tmpfs, commands)
            env = set_up(containers, workspace_tar)
        yield env


def start_containers(stack: contextlib.ExitStack, api: docker.DockerClient, staged: ConditionImage,
                     labels: dict[str, str], grading: bool, volumes: dict | None = None,
                     tmpfs: dict | None = None, commands: bool = False) -> Containers:
    """The sidecars and the agent's container started; everything started is left on `stack` to be
    removed."""
    condition, image = staged.condition, staged.image
    labels = {"impasse.task": condition.task.id, "impasse.condition": condition.name, **labels}
    options, workspace_tmpfs = docker_run_options(condition)
    card_memory = commands_memory(options, condition) if commands else None
    children: list[Commands] = []
    stack.callback(lambda: [child.remove() for child in children])  # after the container is gone
    for key, extra in (("volumes", volumes), ("tmpfs", tmpfs)):
        if extra:  # beside the card's own, never over them
            options[key] = {**extra, **options.get(key, {})}
    if grading and options.get("read_only") and not workspace_tmpfs:
        # The grader must write the final workspace in, but a writable rootfs would give Python's
        # tempfile a fallback the episode did not have; so only /workspace becomes writable.
        options["tmpfs"] = {**options.get("tmpfs", {}), "/workspace": "rw,size=512m,uid=1000,gid=1000"}
    sidecars = active_sidecars(condition)
    # A generated task is applied on its project's image; grading brings the agent's own tree instead.
    overlay = condition.task.real is not None and not grading
    if overlay and options.get("read_only") and not workspace_tmpfs:
        image = stack.enter_context(overlaid_image(api, image, condition.task.bug_patch.read_text(), labels))
        overlay = False  # it is in the image already
    network = None
    if sidecars:
        net_name = f"impasse-{labels.get('impasse.run_id', 'env')}-{int(time.time() * 1000) % 10**9}"
        network = stack.enter_context(private_network(api, net_name, labels))
    started: list = []
    stack.callback(lambda: [remove_container(c) for c in started])
    for service in sidecars:
        started.append(start_sidecar(api, image, service, network, labels))
    spec = SandboxSpec(image=image, labels=labels, network=network or "none",
                       environment=agent_environment(condition),
                       run_options={**options, "extra_hosts": extra_hosts(condition)})
    box = stack.enter_context(open_sandbox(api, spec))
    if commands:
        children.append(Commands.make(box.id, card_memory))
    # The owner before the root setup, which may change it; the workspace steps run as it.
    owner, base = start_facts(box, options.get("tmpfs", {}).get("/workspace"))
    return Containers(box, staged, owner, base, started, workspace_tmpfs, overlay, children[0] if children else None)


def commands_memory(options: dict, condition: Condition) -> int | None:
    """The card's memory limit taken off the container's options (it is the commands' cgroup's, in
    bytes), the container given the control's: the task's working set twice over, or the default."""
    card = options.pop("mem_limit", None)
    options.pop("memswap_limit", None)
    memory = condition.task.requires.memory_mb
    if memory:
        options.update(mem_limit=f"{max(memory * 2, 512)}m", memswap_limit=f"{max(memory * 2, 512)}m")
    return None if card is None else docker.utils.parse_bytes(card)


def set_up(containers: Containers, workspace_tar: bytes | None) -> LiveEnvironment:
    """The workspace in place (the agent's work tree when grading), the services up and the card's
    root setup run."""
    box, condition, owner, base = containers.box, containers.staged.condition, containers.owner, containers.base
    if workspace_tar is not None:
        put_worktree(box, owner, workspace_tar, condition.task.test_paths, tmpfs=containers.workspace_tmpfs)
    elif containers.workspace_tmpfs:
        populate_seed(box, owner)
    if containers.overlay:
        base = apply_overlay(box, condition.task.bug_patch.read_text())
    tree = base_tree_of(box, base) if workspace_tar is None else ""
    local = active_local_services(condition)
    for service in local:
        start_local_service(box, service, condition)
    wait_for_ports(box, local)
    wait_for_ports(box, active_sidecars(condition), host_of=lambda s: s.host)
    run_root_setup(box, condition)
    if condition.card.inject.root_setup:
        owner = workspace_owner(box)
    return LiveEnvironment(box, containers.staged, time.time(), owner, base, containers.sidecars,
                           containers.commands, tree)
