"""Where the project's data lives. impasse runs from its checkout (`pip install -e .`), so the
folders sit beside the package; IMPASSE_HOME points elsewhere when they do not."""

from __future__ import annotations

import os
from pathlib import Path

ROOT = Path(os.environ.get("IMPASSE_HOME", Path(__file__).resolve().parent.parent))
DOCKERFILES = ROOT / "dockerfiles"
HARNESS = ROOT / "harness"
TASKS = ROOT / "tasks"
CARDS = ROOT / "blocker_cards"
SCHEMAS = Path(__file__).resolve().parent / "catalog" / "schemas"
