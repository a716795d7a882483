"""What an agent in the container leaves for the run folder: its own logs and transcripts, copied
out of its state mount and of its folders in the work tree (a spec's `launch.worktree`) into `agent/`
once it has ended, flattened (`home/.claude/x.jsonl` as `home__.claude__x.jsonl`)."""

from __future__ import annotations

import io
import tarfile
from pathlib import Path

from impasse.agents.launch import STATE, WORKSPACE
from impasse.episode.rundir import RunDir
from impasse.infra.sandbox import AGENT_USER, SandboxUnavailable

KEPT = (".jsonl", ".txt", ".log", ".json")  # the agent's transcripts and logs; not its sqlite state


def in_worktree(spec) -> list[str]:
    """The folders the agent keeps inside the work tree (its spec's `launch.worktree`), in the container."""
    launch = spec.agent.declared.launch if spec.agent.declared else None
    return [f"{WORKSPACE}/{name}" for name in (launch.worktree if launch else ())]


def keep_transcripts(box, run_dir: RunDir, spec) -> None:
    """The agent's own logs and transcripts, flattened into the run folder's `agent/`: its mount's,
    and its folders' in the work tree (as `worktree__<folder>__…`)."""
    kept = run_dir.path / "agent"
    kept.mkdir(exist_ok=True)
    keep_folder(box, STATE, kept, "")
    for folder in in_worktree(spec):
        keep_folder(box, folder, kept, "worktree__" + folder.removeprefix(f"{WORKSPACE}/") + "__")


def keep_folder(box, folder: str, kept: Path, prefix: str) -> None:
    try:
        # As the agent: the harness's root holds no capabilities and cannot read the agent's 0700 files.
        data = box.read_tar(folder, excludes=("./home/.cache", "./tmp"), user=AGENT_USER)[0]
    except SandboxUnavailable as err:  # a container gone at the end: the relay's record stands
        (kept / f"{prefix}missing.txt").write_text(f"the agent's folder {folder} could not be read: {err}\n")
        return
    if not data:
        (kept / f"{prefix}missing.txt").write_text(f"the agent's folder {folder} could not be read: an empty archive\n")
        return
    with tarfile.open(fileobj=io.BytesIO(data)) as archive:
        for member in archive.getmembers():
            if member.isfile() and member.name.endswith(KEPT):
                name = prefix + member.name.removeprefix("./").replace("/", "__")
                (kept / name).write_bytes(archive.extractfile(member).read())
