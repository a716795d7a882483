"""The work of an episode carried into a fresh environment: how the operator lifts a blocker. The
harness's root holds no capabilities inside the agent's container, so it cannot undo most blockers
in place (chown the work tree back, remount it writable, re-add a purged package or binary, hand a
running shell a variable); a fresh container of the task under the control condition, with the work
tree carried over whole — its changes, its `.git` and its commits — undoes every one exactly. What
is not carried: the card's ballast, a stale `index.lock`, processes, files outside the work tree."""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import Iterator

import docker

from impasse.infra.environment import LiveEnvironment, set_up, start_containers
from impasse.infra.layers import ConditionImage
from impasse.infra.sandbox import Sandbox, SandboxUnavailable

LEFT_BEHIND = ("./.ballast", "./.git/index.lock")
CARRY_LIMIT = 256 * 1024**2


def capture_work(env: LiveEnvironment) -> bytes:
    """The whole work tree, `.git` included, read as its owner."""
    return env.box.read_tar("/workspace", excludes=LEFT_BEHIND, user=env.workspace_owner(), limit=CARRY_LIMIT)[0]


def put_work(box: Sandbox, owner: str, work: bytes) -> None:
    """The fresh container's own work tree (and repository) replaced by the carried one, as its owner."""
    script = "find /workspace -mindepth 1 -maxdepth 1 -exec rm -rf {} + ; tar -C /workspace --no-same-owner -xf -"
    code, output = box.pipe(["sh", "-c", script], work, owner)
    if code != 0:
        raise SandboxUnavailable(f"the work tree could not be carried into {box.container.short_id}: {output[-300:]}")


@contextlib.contextmanager
def fresh_environment(api: docker.DockerClient, staged: ConditionImage, labels: dict[str, str], work: bytes,
                      base: str) -> Iterator[LiveEnvironment]:
    """`staged`: the task under the control condition. Its services start as they would for a run of
    its own; the episode's base commit stays the one the agent started from."""
    with contextlib.ExitStack() as stack:
        containers = start_containers(stack, api, staged, labels, grading=True)  # the bug is in the work
        put_work(containers.box, containers.owner, work)
        env = set_up(containers, None)
        yield dataclasses.replace(env, base=base)
