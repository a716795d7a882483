"""`.relnotes.yaml`: which commit types make it into the notes, and under which heading."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import yaml

DEFAULT_SECTIONS = {"feat": "Features", "fix": "Bug fixes", "perf": "Performance"}


class ConfigError(ValueError):
    pass


@dataclass(frozen=True)
class NotesConfig:
    sections: dict[str, str] = field(default_factory=lambda: dict(DEFAULT_SECTIONS))
    include_other: bool = False
    tag_prefix: str = "v"


def parse_config(text: str) -> NotesConfig:
    data = yaml.safe_load(text) or {}
    if not isinstance(data, dict):
        raise ConfigError("the config must be a mapping")
    sections = data.get("sections", DEFAULT_SECTIONS)
    if not isinstance(sections, dict) or not all(isinstance(v, str) for v in sections.values()):
        raise ConfigError("sections must map commit types to headings")
    return NotesConfig(dict(sections), bool(data.get("include_other", False)),
                       str(data.get("tag_prefix", "v")))


def load_config(repo: Path) -> NotesConfig:
    path = Path(repo) / ".relnotes.yaml"
    return parse_config(path.read_text(encoding="utf-8")) if path.exists() else NotesConfig()
