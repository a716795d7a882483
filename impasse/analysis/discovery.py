"""Sessions where the agents keep them. Under a folder, every file is looked at, however deep:
Claude Code's `~/.claude/projects/<project>/<session>.jsonl` (and its sub-agents' transcripts,
`<session>/subagents/agent-*.jsonl`, each a trajectory of its own), Codex's
`~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl`, mini-swe-agent's and SWE-agent's output folders
(`<instance>/<instance>.traj.json`, `.traj`), OpenHands event lists and ATIF files, and impasse's own
run folders. What is not a session (predictions, configs, another tool's JSON, a binary file) is
passed over and counted by reason; a folder that cannot be read is named. Nothing here opens more
than the first bytes of a file."""

from __future__ import annotations

import os
import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from impasse.analysis.formats.inspect_log import is_inspect_head
from impasse.analysis.formats.openhands_store import is_event_folder
from impasse.analysis.importers import FOREIGN_SUFFIXES, JSON_SUFFIXES, is_foreign_file

# Folders no agent keeps a session in, and that can be huge.
PRUNED = frozenset((".git", "node_modules", "__pycache__", ".venv", "venv", ".tox", ".mypy_cache", ".pytest_cache",
                    "site-packages"))
HEAD_BYTES = 1 << 16
# A key a trajectory document has near its top (mini-swe-agent, SWE-agent, ATIF, OpenHands); escaped
# quotes (a key inside a JSON string, as in a patch) do not count.
TRAJECTORY_KEY = re.compile(rb'(?<!\\)"(?:messages|trajectory|steps|schema_version|history|source|role)"\s*:')

TRAJECTORY_NAMES = (".traj", ".traj.json")
OTHER_FILE = "not a log format (other files)"
FOREIGN_JSON = "JSON that is no session (another tool's file)"
FOREIGN_LINES = "JSON Lines or log that is no session (another tool's file)"
EMPTY = "empty file"
BINARY = "binary file"


@dataclass
class Discovery:
    found: list[tuple[Path, str]] = field(default_factory=list)  # (path, 'ours' | 'foreign' (given) | 'found')
    passed_over: Counter = field(default_factory=Counter)  # reason -> files
    examples: dict[str, list[str]] = field(default_factory=dict)  # reason -> the first few paths
    unreadable: list[str] = field(default_factory=list)  # one message per folder or file that cannot be read

    def pass_over(self, path: Path, reason: str) -> None:
        self.passed_over[reason] += 1
        if reason != OTHER_FILE:
            self.examples.setdefault(reason, [])
            if len(self.examples[reason]) < 3:
                self.examples[reason].append(str(path))


def is_run_folder(path: Path) -> bool:
    return (path / "meta.json").is_file()


def discover(paths: list[Path]) -> Discovery:
    """Every session below the paths, in a stable order; a path given as a file is read as it is."""
    discovery = Discovery()
    for path in paths:
        if path.is_dir() and is_run_folder(path):
            discovery.found.append((path, "ours"))
        elif path.is_dir() and is_event_folder(path):
            discovery.found.append((path, "found"))
        elif path.is_dir():
            walk(path, discovery)
        else:
            discovery.found.append((path, "foreign"))
    return discovery


def walk(folder: Path, discovery: Discovery) -> None:
    try:
        entries = sorted(os.scandir(folder), key=lambda e: e.name)
    except OSError as err:
        discovery.unreadable.append(f"{folder}: cannot be read ({err.strerror or err})")
        return
    for entry in entries:
        path = Path(entry.path)
        try:
            if entry.is_dir(follow_symlinks=False):
                if is_run_folder(path):
                    discovery.found.append((path, "ours"))
                elif is_event_folder(path):  # an OpenHands session: one event per file, read as one
                    discovery.found.append((path, "found"))
                elif entry.name not in PRUNED:
                    walk(path, discovery)
            elif entry.is_file():
                reason = not_a_session(path)
                if reason:
                    discovery.pass_over(path, reason)
                else:
                    discovery.found.append((path, "found"))
        except OSError as err:
            discovery.unreadable.append(f"{path}: cannot be read ({err.strerror or err})")


def not_a_session(path: Path) -> str:
    """Why a file found in a folder is no session ("" when it may be one): by its name, then its first bytes."""
    if not path.name.endswith(FOREIGN_SUFFIXES):
        return OTHER_FILE
    with path.open("rb") as handle:
        head = handle.read(HEAD_BYTES)
    if not head.strip():
        return EMPTY
    if is_inspect_head(path.name, head):  # a zip, binary by its bytes, or inspect-ai's JSON
        return ""
    if b"\0" in head:
        return BINARY
    if path.name.endswith(TRAJECTORY_NAMES):  # a name only a trajectory has: read it, torn or not
        return ""
    if path.name.endswith(JSON_SUFFIXES):
        return "" if head.lstrip()[:1] in (b"{", b"[") and TRAJECTORY_KEY.search(head) else FOREIGN_JSON
    return "" if is_foreign_file(path) else FOREIGN_LINES


def passed_over_lines(discovery: Discovery) -> list[str]:
    """One counted line per reason, with a few of the files it applies to."""
    lines = []
    for reason, count in discovery.passed_over.most_common():
        examples = discovery.examples.get(reason, [])
        shown = f": {', '.join(examples)}{', …' if count > len(examples) else ''}" if examples else ""
        lines.append(f"{count} {'file' if count == 1 else 'files'} passed over, {reason}{shown}")
    return lines
