"""Reading history with the git command line."""

from __future__ import annotations

import subprocess
from pathlib import Path

from relnotes.conventional import Change, parse_message
from relnotes.version import Version

FIELD, RECORD = "\x1f", "\x1e"


class GitError(RuntimeError):
    pass


def git(repo: Path, *args: str) -> str:
    done = subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True)
    if done.returncode != 0:
        raise GitError(f"git {' '.join(args)} failed: {done.stderr.strip()}")
    return done.stdout


def latest_version_tag(repo: Path, prefix: str = "v") -> tuple[str, Version] | None:
    tags = git(repo, "tag", "--list", f"{prefix}*").split()
    versions = []
    for tag in tags:
        try:
            versions.append((Version.parse(tag, prefix), tag))
        except ValueError:
            continue
    if not versions:
        return None
    version, tag = max(versions)
    return tag, version


def changes_since(repo: Path, tag: str | None) -> list[Change]:
    span = f"{tag}..HEAD" if tag else "HEAD"
    out = git(repo, "log", "--reverse", f"--format=%H{FIELD}%B{RECORD}", span)
    changes = []
    for record in out.split(RECORD):
        if not record.strip():
            continue
        sha, _, message = record.strip().partition(FIELD)
        changes.append(parse_message(sha, message))
    return changes
