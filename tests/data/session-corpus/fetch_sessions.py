"""Bring the labelled sessions onto this machine, byte for byte, from the repositories their owners
committed them to: every provenance line's `repo`, `commit` and `path`, checked against its `sha256`.
The sessions are their owners' data and are never committed here; only the labels are.

    python tests/data/session-corpus/fetch_sessions.py OUT [--mirrors DIR]

OUT: the folder the sessions go to (`impasse agreement … --sessions OUT`). --mirrors: a folder of
bare clones named `owner+name` (or `owner+name/repo`); without one, each repository is cloned from
GitHub into a temporary folder. A session that cannot be had, or whose bytes differ, is named on
stderr and counted; the rest are written."""

from __future__ import annotations

import argparse
import hashlib
import json
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent


def git_dir(repo: str, mirrors: Path | None, scratch: Path) -> Path:
    if mirrors is not None:
        for candidate in (mirrors / repo.replace("/", "+") / "repo", mirrors / repo.replace("/", "+")):
            if (candidate / "HEAD").is_file() or (candidate / ".git").exists():
                return candidate
    target = scratch / repo.replace("/", "+")
    if not target.exists():
        subprocess.run(["git", "clone", "-q", "--bare", f"https://github.com/{repo}.git", str(target)],
                       check=True, timeout=600)
    return target


def blob(row: dict, mirrors: Path | None, scratch: Path) -> bytes:
    where = git_dir(row["repo"], mirrors, scratch)
    return subprocess.run(["git", f"--git-dir={where}", "show", f"{row['commit']}:{row['path']}"],
                          check=True, capture_output=True, timeout=300).stdout


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--mirrors", type=Path)
    parser.add_argument("--provenance", type=Path, default=HERE / "provenance.jsonl")
    args = parser.parse_args()
    rows = [json.loads(line) for line in args.provenance.read_text().splitlines() if line.strip()]
    args.out.mkdir(parents=True, exist_ok=True)
    missing = 0
    with tempfile.TemporaryDirectory() as scratch:
        for row in rows:
            target = args.out / row["file"]
            if target.is_file() and hashlib.sha256(target.read_bytes()).hexdigest() == row["sha256"]:
                continue
            try:
                data = blob(row, args.mirrors, Path(scratch))
            except (subprocess.SubprocessError, OSError) as err:
                print(f"{row['file']}: not had from {row['repo']}@{row['commit'][:12]}: {err}", file=sys.stderr)
                missing += 1
                continue
            if hashlib.sha256(data).hexdigest() != row["sha256"]:
                print(f"{row['file']}: the bytes at {row['repo']}@{row['commit'][:12]} differ", file=sys.stderr)
                missing += 1
                continue
            target.write_bytes(data)
    print(f"{len(rows) - missing} of {len(rows)} sessions in {args.out}")
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())
