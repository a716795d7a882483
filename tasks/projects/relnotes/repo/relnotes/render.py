"""Markdown release notes."""

from __future__ import annotations

from datetime import date

from relnotes.config import NotesConfig
from relnotes.conventional import Change
from relnotes.version import Version


def entry(change: Change) -> str:
    scope = f"**{change.scope}:** " if change.scope else ""
    return f"- {scope}{change.subject} ({change.short_sha})"


def render(version: Version, changes: list[Change], config: NotesConfig, day: date) -> str:
    lines = [f"## {config.tag_prefix}{version} ({day.isoformat()})", ""]
    breaking = [c for c in changes if c.breaking]
    if breaking:
        lines += ["### ⚠ Breaking changes", ""]
        lines += [f"- {c.breaking_note} ({c.short_sha})" for c in breaking] + [""]
    for ctype, heading in config.sections.items():
        picked = [c for c in changes if c.type == ctype]
        if picked:
            lines += [f"### {heading}", ""] + [entry(c) for c in picked] + [""]
    if config.include_other:
        other = [c for c in changes if c.type not in config.sections]
        if other:
            lines += ["### Other", ""] + [entry(c) for c in other] + [""]
    return "\n".join(lines).rstrip() + "\n"
