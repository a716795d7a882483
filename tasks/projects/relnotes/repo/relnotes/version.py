"""Semantic versions and the bump a set of changes calls for."""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import IntEnum

from relnotes.conventional import Change

SEMVER = re.compile(r"^(?P<major>0|[1-9]\d*)\.(?P<minor>0|[1-9]\d*)\.(?P<patch>0|[1-9]\d*)$")


class Bump(IntEnum):
    NONE = 0
    PATCH = 1
    MINOR = 2
    MAJOR = 3


@dataclass(frozen=True, order=True)
class Version:
    major: int
    minor: int
    patch: int

    @classmethod
    def parse(cls, text: str, prefix: str = "v") -> Version:
        match = SEMVER.match(text.removeprefix(prefix))
        if not match:
            raise ValueError(f"not a semantic version: {text!r}")
        return cls(int(match["major"]), int(match["minor"]), int(match["patch"]))

    def bumped(self, bump: Bump) -> Version:
        if bump is Bump.MAJOR:
            # before 1.0.0 a breaking change bumps the minor version (SemVer §4)
            return Version(0, self.minor + 1, 0) if self.major == 0 else Version(self.major + 1, 0, 0)
        if bump is Bump.MINOR:
            return Version(self.major, self.minor + 1, 0)
        if bump is Bump.PATCH:
            return Version(self.major, self.minor, self.patch + 1)
        return self

    def __str__(self) -> str:
        return f"{self.major}.{self.minor}.{self.patch}"


def bump_for(changes: list[Change]) -> Bump:
    bump = Bump.NONE
    for change in changes:
        if change.breaking:
            return Bump.MAJOR
        if change.type == "feat":
            bump = max(bump, Bump.MINOR)
        elif change.type in {"fix", "perf"}:
            bump = max(bump, Bump.PATCH)
    return bump
