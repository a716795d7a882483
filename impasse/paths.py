"""Where the project's data lives. impasse runs from its checkout (`pip install -e .`), so the
folders sit beside the package; IMPASSE_HOME points elsewhere when they do not."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

ROOT = Path(os.environ.get("IMPASSE_HOME", Path(__file__).resolve().parent.parent))
DOCKERFILES = ROOT / "dockerfiles"
HARNESS = ROOT / "harness"
TASKS = ROOT / "tasks"
CARDS = ROOT / "blocker_cards"
SCHEMAS = Path(__file__).resolve().parent / "catalog" / "schemas"


def user_cache(name: str) -> Path:
    """impasse's cache folder `name` under the user's (`$XDG_CACHE_HOME`, else `~/.cache`)."""
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "impasse" / name


def write_atomic(path: Path, text: str) -> None:
    """The whole text or, if interrupted, the file as it was: written beside it, then renamed over
    it (two processes writing at once leave one of the two whole texts)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    with os.fdopen(handle, "w", encoding="utf-8") as out:
        out.write(text)
    os.replace(tmp, path)
