"""Content hashes of files and folders: the tags of cached images and the ids of runs derive from them."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from pathlib import Path

TAG_LENGTH = 12
IGNORED_PARTS = {"__pycache__", ".pytest_cache", ".git"}


def iter_files(root: Path) -> list[Path]:
    """Every file below root (or root itself), sorted, skipping caches that do not change behaviour."""
    if root.is_file():
        return [root]
    return sorted(p for p in root.rglob("*")
                  if p.is_file() and not IGNORED_PARTS.intersection(p.relative_to(root).parts))


def hash_tree(paths: Iterable[Path], *extra: str) -> str:
    """A short sha256 over each file's relative name, mode bit for exec, and bytes, plus extra strings."""
    digest = hashlib.sha256()
    for root in paths:
        for path in iter_files(root):
            name = path.name if root.is_file() else str(path.relative_to(root))
            digest.update(name.encode() + b"\0")
            digest.update(b"x" if path.stat().st_mode & 0o100 else b"-")
            digest.update(path.read_bytes() + b"\0")
    for item in extra:
        digest.update(item.encode() + b"\0")
    return digest.hexdigest()[:TAG_LENGTH]


def hash_text(*parts: str) -> str:
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()[:TAG_LENGTH]


def file_sha256(path: Path) -> str:
    """The full sha256 of a file, read in blocks (a download checked against its pin)."""
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()
