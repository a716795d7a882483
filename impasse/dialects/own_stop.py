"""An agent's own word on why it stopped, from the event stream it prints (stream-json, `--json`):
the last record that says the run ended in error. Every agent impasse runs headless writes one in
its family's shape:

- Claude Code and Qwen Code: `{"type": "result", "is_error": true, "subtype": "error_max_turns" |
  "error_during_execution", "error": {"message": …}}` (Qwen Code's loop detector, its turn cap);
- Gemini CLI: `{"type": "result", "status": "error", "error": {"type": …, "message": …}}`;
- Codex: `{"type": "turn.failed", "error": {"message": …}}` or `{"type": "error", "message": …}`;
- opencode: `{"type": "error", "error": {"name": …, "data": {"message": …}}}`.

The class is "a final record of the agent's own that marks an error and carries words", not any one
agent's string: an agent added later is read if its stream has that shape."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from impasse.dialects.failures import is_connection

TAIL_BYTES = 256 * 1024  # the stop record is among the last lines; a long stream is read from its end
ERROR_TYPES = {"error", "turn.failed", "session.error"}
WORDS = 300


@dataclass(frozen=True)
class OwnStop:
    words: str  # the agent's own words for it (its error message, else its subtype)
    kind: str  # the record's type and subtype or status, e.g. `result/error_during_execution`

    @property
    def connection(self) -> bool:
        """Whether the words are of a failed connection to the model, not of the agent stopping itself."""
        return is_connection(self.words)


def own_stop(stream: Path) -> OwnStop | None:
    """The last error record of the agent's event stream, or None (no stream, no such record, or a
    stream whose last event is not one: the agent went on after an error it recovered from)."""
    for line in reversed(tail_lines(stream)):
        record = parsed(line)
        if record is None:
            continue
        return stop_of(record)
    return None


def tail_lines(stream: Path) -> list[str]:
    try:
        with stream.open("rb") as handle:
            handle.seek(0, 2)
            size = handle.tell()
            handle.seek(max(0, size - TAIL_BYTES))
            return handle.read().decode(errors="replace").splitlines()
    except OSError:
        return []


def parsed(line: str) -> dict | None:
    line = line.strip()
    if not line.startswith("{"):
        return None
    try:
        record = json.loads(line)
    except ValueError:
        return None
    return record if isinstance(record, dict) else None


def stop_of(record: dict) -> OwnStop | None:
    kind = str(record.get("type") or "")
    if kind == "result":
        flag = str(record.get("subtype") or record.get("status") or "")
        if record.get("is_error") is True or flag.startswith("error"):
            return OwnStop(words_of(record) or flag.replace("_", " "), f"result/{flag or 'error'}")
        return None
    if kind in ERROR_TYPES:
        return OwnStop(words_of(record) or kind, kind)
    return None


def words_of(record: dict) -> str:
    """The message of an error record, wherever its family puts it."""
    error = record.get("error")
    candidates = [record.get("message"), record.get("result")]
    if isinstance(error, dict):
        data = error.get("data") if isinstance(error.get("data"), dict) else {}
        candidates = [error.get("message"), data.get("message"), error.get("name"), *candidates]
    elif isinstance(error, str):
        candidates.insert(0, error)
    text = next((str(c).strip() for c in candidates if isinstance(c, str) and c.strip()), "")
    return " ".join(text.split())[:WORDS]
