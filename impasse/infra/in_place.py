"""Blockers undone where they are, for an agent that runs inside its own container (it cannot be
moved to a fresh one, as infra/carry.py moves impasse's own loop).

The harness's root inside the container holds no capabilities (sandbox.HARDENING drops them all),
and `docker exec --privileged` cannot give them back to a container started with cap_drop ALL (the
engine: "unable to apply caps: operation not permitted"). The host's root entering only the
container's mount namespace (nsenter -m) keeps its own: it sees the files as the agent does and may
chown them, remount the root file system writable, and unpack files copied from the control image.
This needs the engine on this host, as every run here has it."""

from __future__ import annotations

import subprocess

import docker
import docker.errors

from impasse.infra.sandbox import HARDENING, Sandbox, remove_container

RESTORE_LIMIT = 512 * 1024**2  # what a package's files come to, with room: a runaway listing stops here
# Each listed path that exists and is not a folder (tar adds the folders it needs), without symlinks
# resolved: a RECORD's `../../bin/x` becomes /usr/local/bin/x.
PACK = ('while IFS= read -r f; do f=$(realpath -s -- "$f"); '
        '{ [ -e "$f" ] || [ -L "$f" ]; } && { [ -L "$f" ] || [ ! -d "$f" ]; } && printf "%s\\n" "$f"; done '
        '| sort -u | tar -C / --no-recursion -cf - -T -')


class LiftError(RuntimeError):
    """A blocker that could not be undone where it is."""


def as_real_root(box: Sandbox, script: str, data: bytes | None = None, timeout: float = 120) -> str:
    """`script` by `sh` as the host's root in the container's mount namespace; `data` on its stdin."""
    box.container.reload()
    pid = (box.container.attrs.get("State") or {}).get("Pid")
    if not pid:
        raise LiftError(f"container {box.container.short_id} is not running")
    try:
        done = subprocess.run(["nsenter", "-t", str(pid), "-m", "--", "sh", "-c", script], input=data,
                              capture_output=True, timeout=timeout, check=False)
    except (OSError, subprocess.TimeoutExpired) as err:
        raise LiftError(f"nsenter into {box.container.short_id}: {err}") from err
    output = (done.stdout + done.stderr).decode(errors="replace")
    if done.returncode != 0:
        raise LiftError(f"as root in {box.container.short_id}, exit {done.returncode}: {output.strip()[-300:]}")
    return output


def files_from(api: docker.DockerClient, image: str, listing: str, labels: dict[str, str]) -> bytes:
    """A tar of the files `listing` (a root script) prints, read in a container of `image`."""
    container = api.containers.run(image, ["sleep", "300"], detach=True, user="0:0", network_mode="none",
                                   labels={"impasse": "1", **labels}, **HARDENING)
    try:
        code, (out, err) = container.exec_run(["sh", "-c", f"( {listing} ) | {PACK}"], user="0:0", demux=True)
    except docker.errors.APIError as error:
        raise LiftError(f"reading the control image's files: {error}") from error
    finally:
        remove_container(container)
    if code != 0 or not out:
        raise LiftError(f"the control image's files could not be read (exit {code}): {(err or b'').decode()[-300:]}")
    if len(out) > RESTORE_LIMIT:
        raise LiftError(f"the files to restore come to {len(out)} bytes, over {RESTORE_LIMIT}")
    return out


def restore(api: docker.DockerClient, box: Sandbox, image: str, listing: str, labels: dict[str, str]) -> None:
    """The files `listing` names in the control image, unpacked over the blocked container's."""
    as_real_root(box, "tar -C / -xpf -", files_from(api, image, listing, labels))
