"""How Claude Code reports a tool's result, read alike by the runtime (agents/tool_results.py) and
the annotator (analysis/formats/claude_code.py, session_facts.py), so a run's steps.jsonl and its own
transcript annotate alike. A failed Bash call's result, marked `is_error`, begins with `Exit code N`;
one with no such line failed with its status unrecorded (read as 1)."""

from __future__ import annotations

import re

EXIT_LINE = re.compile(r"Exit code (-?\d+)\b\n?")  # matched at the result's start
# A failure recorded without its exit status reads as 1; every format reader (analysis/formats/common.py)
# takes this one value, so the runtime and the annotator cannot disagree on it.
FAILED_STATUS_UNKNOWN = 1
# What Claude Code adds to a result for the model (a reminder), not the command's output
REMINDER = re.compile(r"\s*<system-reminder>.*?</system-reminder>\s*", re.S)
NO_OUTPUT = "(Bash completed with no output)"  # its words for a command that printed nothing
TIMEOUT_LINE = "Command timed out after "  # Bash killed the command at its own timeout (`timeout` input)
INTERRUPTED = "[Request interrupted by user"  # the human pressed stop, in a result or a prompt
# A human said no at the permission prompt (or interrupted the call): the tool never ran.
REJECTED = ("The user doesn't want to proceed with this tool use", INTERRUPTED)


def failed_status(text: str) -> tuple[str, int]:
    """A failed call's result as (what follows its `Exit code N` line, N); without the line, the
    whole text and FAILED_STATUS_UNKNOWN."""
    found = EXIT_LINE.match(text)
    return (text[found.end():], int(found.group(1))) if found else (text, FAILED_STATUS_UNKNOWN)
