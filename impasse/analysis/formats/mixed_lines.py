"""A JSON Lines file that holds two agents' sessions (two logs concatenated, one session appended to
another's file). It is read as the format detection chose, and the lines of another agent's format
are passed over, counted in one warning, never read as steps: a Codex line is no Claude Code step."""

from __future__ import annotations

from collections import Counter

from impasse.analysis.formats.codex import ITEM_TYPES, ROLLOUT_TYPES
from impasse.analysis.formats.codex_exec import EVENTS as CODEX_EXEC_EVENTS
from impasse.analysis.formats.gemini_cli import is_gemini_record, is_header
from impasse.analysis.formats.opencode import is_opencode_event
from impasse.analysis.formats.qwen_code import is_qwen_record

# The agents whose lines can be told apart one by one; a reader takes its own family's lines only.
FAMILY = {"claude-code": "Claude Code", "codex": "Codex", "codex-exec": "Codex", "gemini-cli": "Gemini CLI",
          "qwen-code": "Gemini CLI", "opencode-json": "opencode"}
CODEX_LINES = frozenset((*ROLLOUT_TYPES, *ITEM_TYPES, *CODEX_EXEC_EVENTS)) - {"error"}


CLAUDE_CODE = "Claude Code"


def is_claude_line(record: dict) -> bool:
    message = record.get("message")
    return (record.get("type") in ("user", "assistant") and isinstance(message, dict)
            and not isinstance(message.get("parts"), list) and not is_header(record))


def family_of(record: dict) -> str | None:
    """The agent a line alone shows it is from (a Qwen Code line is of Gemini CLI's family), or None.
    The same tests detection makes, ordered so that the common line costs one or two lookups."""
    kind = record.get("type")
    if kind in CODEX_LINES:
        return "Codex"
    if kind in ("user", "assistant") and isinstance(message := record.get("message"), dict):
        return "Gemini CLI" if isinstance(message.get("parts"), list) or is_header(record) else "Claude Code"
    if is_gemini_record(record) or is_qwen_record(record):
        return "Gemini CLI"
    return "opencode" if is_opencode_event(record) else None


def passed_over(records: list[dict], chosen: str) -> str:
    """The warning for another agent's lines in a file read as `chosen`, or ""."""
    mine = FAMILY.get(chosen)
    if mine is None:
        return ""
    others: Counter[str] = Counter()
    for record in records:
        if mine == CLAUDE_CODE and is_claude_line(record):  # the common case, without the other tests
            continue
        family = family_of(record)
        if family is not None and family != mine:
            others[family] += 1
    if not others:
        return ""
    counted = ", ".join(f"{n} line{'s' * (n != 1)} of a {family} session" for family, n in others.most_common())
    return f"{counted} passed over (the file is read as {chosen}'s)"
