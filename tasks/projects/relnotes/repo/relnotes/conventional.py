"""Conventional Commits 1.0: `type(scope)!: subject`, and `BREAKING CHANGE:` footers."""

from __future__ import annotations

import re
from dataclasses import dataclass

HEADER = re.compile(r"^(?P<type>[a-z]+)(?:\((?P<scope>[\w./-]+)\))?(?P<bang>!)?: (?P<subject>.+)$")
BREAKING_FOOTER = re.compile(r"^BREAKING[ -]CHANGE: (?P<text>.+)$", re.MULTILINE)


@dataclass(frozen=True)
class Change:
    sha: str
    type: str
    scope: str | None
    subject: str
    breaking: bool
    breaking_note: str | None = None

    @property
    def short_sha(self) -> str:
        return self.sha[:7]


def parse_message(sha: str, message: str) -> Change:
    """Any commit becomes a Change; one that does not follow the convention has type 'other'."""
    header, _, body = message.strip().partition("\n")
    footer = BREAKING_FOOTER.search(body)
    match = HEADER.match(header.strip())
    if not match:
        return Change(sha, "other", None, header.strip(), bool(footer),
                      footer.group("text") if footer else None)
    breaking = bool(match.group("bang")) or bool(footer)
    note = footer.group("text") if footer else (match.group("subject") if breaking else None)
    return Change(sha, match.group("type"), match.group("scope"), match.group("subject"),
                  breaking, note)
