"""A generated task applied on a container of its project's image, after the card's build-time recipe
and before its root setup: the bug is folded into the repository's one commit, so neither
`git log`, `git diff`, the reflog nor a dangling object shows what was changed.

The recipe may have changed who owns what (chown_root: all of it root's; git_index_lock: .git root's
with a stale index.lock), and the harness holds no capabilities in the container, so each step runs
as the owner of what it writes: the work tree's owner patches the files, .git's owner writes the
commit through a private index (index.lock is never taken). The new base commit is handed back to
the harness, not written into the container, whose root filesystem may be read-only (disk_full).

A read-only root filesystem (read_only_fs) takes no write at all, so there the task is applied in a
writable container of the same image, committed to a transient image the run starts from, and that
image is removed with the run.
"""

from __future__ import annotations

import contextlib
import uuid
from collections.abc import Iterator

import docker
import docker.errors

from impasse.infra.sandbox import Sandbox, SandboxSpec, file_tar, open_sandbox

PATCH = "/tmp/impasse-task.patch"
INDEX = "/tmp/impasse-task.index"
GIT = "git -c safe.directory='*' -c core.hooksPath=/dev/null"
DATES = "GIT_AUTHOR_DATE=2026-01-01T00:00:00Z GIT_COMMITTER_DATE=2026-01-01T00:00:00Z"
OVERLAY_REPO = "impasse-overlay"
BASE_FILE = "/opt/impasse-state/base_commit"

APPLY = f"cd /workspace && {GIT} apply --whitespace=nowarn {PATCH}"
# Replace the one commit by one holding the bug: same author, committer, dates and message.
RECOMMIT = f"""set -e
cd /workspace
old=$({GIT} rev-parse HEAD)
cp .git/index {INDEX}
export GIT_INDEX_FILE={INDEX} {DATES}
{GIT} add -A
tree=$({GIT} write-tree)
export GIT_AUTHOR_NAME="$({GIT} log -1 --format=%an)" GIT_AUTHOR_EMAIL="$({GIT} log -1 --format=%ae)"
export GIT_COMMITTER_NAME="$({GIT} log -1 --format=%cn)" GIT_COMMITTER_EMAIL="$({GIT} log -1 --format=%ce)"
new=$({GIT} commit-tree "$tree" -m "$({GIT} log -1 --format=%B)")
{GIT} update-ref HEAD "$new"
cat {INDEX} > .git/index
rm -f {INDEX}
for log in $(find .git/logs -type f); do sed -i -e '2,$d' -e "s/$old/$new/" "$log"; done
{GIT} prune --expire=now
"""
HEAD = f"{GIT} -C /workspace rev-parse HEAD"


class OverlayError(RuntimeError):
    """The task could not be applied on its project's image."""


def owner_of(box: Sandbox, path: str) -> str:
    owner = box.owner(path)
    if owner is None:
        raise OverlayError(f"cannot tell who owns {path}")
    return owner


def apply_overlay(box: Sandbox, patch: str) -> str:
    """Apply the task; returns the new base commit (the state file may sit on a read-only root)."""
    box.write_tar("/tmp", file_tar(PATCH.rsplit("/", 1)[-1], patch), user="0:0")
    steps = ((APPLY, owner_of(box, "/workspace")), (RECOMMIT, owner_of(box, "/workspace/.git")),
             (f"rm -f {PATCH} && {HEAD}", "0:0"))
    for script, user in steps:
        result = box.exec(script, timeout=120, user=user, workdir="/")
        if result.exit_code:
            raise OverlayError(f"the task's bug patch does not apply on its project: {result.output.strip()[-500:]}")
    return result.output.strip()


@contextlib.contextmanager
def overlaid_image(api: docker.DockerClient, image: str, patch: str, labels: dict[str, str]) -> Iterator[str]:
    """A transient image of `image` with the task applied, removed when the block ends."""
    tag = uuid.uuid4().hex[:12]
    with open_sandbox(api, SandboxSpec(image, labels={**labels, "impasse.role": "overlay"})) as box:
        base = apply_overlay(box, patch)
        box.exec_root(f"echo {base} > {BASE_FILE}")
        box.container.commit(repository=OVERLAY_REPO, tag=tag)
    try:
        yield f"{OVERLAY_REPO}:{tag}"
    finally:
        with contextlib.suppress(docker.errors.APIError):
            api.images.remove(f"{OVERLAY_REPO}:{tag}", force=True)
