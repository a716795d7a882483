"""The release: read history since the last tag, choose the version, write the notes."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from pathlib import Path

from relnotes.config import load_config
from relnotes.gitlog import changes_since, latest_version_tag
from relnotes.render import render
from relnotes.version import Bump, Version, bump_for


@dataclass(frozen=True)
class Release:
    previous: Version | None
    version: Version
    bump: Bump
    notes: str


def plan_release(repo: Path, day: date) -> Release | None:
    config = load_config(repo)
    latest = latest_version_tag(repo, config.tag_prefix)
    previous = latest[1] if latest else None
    changes = changes_since(repo, latest[0] if latest else None)
    bump = bump_for(changes)
    if bump is Bump.NONE:
        return None
    version = (previous or Version(0, 0, 0)).bumped(bump)
    return Release(previous, version, bump, render(version, changes, config, day))
