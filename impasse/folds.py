"""Folds of a labelled set, so figures on items the rules were not tuned on are figures on items never
looked at while tuning. Sessions fold by repository (one person's sessions are alike: a split by file
would leak their habits into the held-out part), escalations by their text. A fold is a hash of its
key, so it never moves when the set grows."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

FOLDS = 5
HELD_OUT = frozenset({3, 4})  # never read while tuning a rule; measured, then left alone
TUNING, HELD_OUT_NAME = "tuning", "held-out"


def fold_of(key: str) -> int:
    return int(hashlib.sha256(key.strip().lower().encode()).hexdigest()[:8], 16) % FOLDS


def split_of(key: str) -> str:
    return HELD_OUT_NAME if fold_of(key) in HELD_OUT else TUNING


def repos_beside(labels_path: Path) -> dict[str, str]:
    """file → repository, from the provenance file beside the labels (empty where there is none)."""
    provenance = labels_path.parent / "provenance.jsonl"
    if not provenance.is_file():
        return {}
    rows = [json.loads(line) for line in provenance.read_text(encoding="utf-8").splitlines() if line.strip()]
    return {row["file"]: row["repo"] for row in rows if "file" in row and "repo" in row}
