"""How Claude Code reports a tool's result, read alike by the runtime (agents/tool_results.py) and
the annotator (analysis/formats/claude_code.py, session_facts.py), so a run's steps.jsonl and its own
transcript annotate alike. A failed Bash call's result, marked `is_error`, begins with `Exit code N`;
one with no such line failed with its status unrecorded (read as 1)."""

from __future__ import annotations

import re

from impasse.dialects.wall import Wall

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


# Its own words for a wall: its permission mode or settings refusing a tool use (the human alone can grant
# it), its sandbox refusing a directory, its fetch tool finding no network.
WALLS = (
    Wall("chown_root", r"Permission to use \w[\w ]{0,60}?(?: with command [^\n]{1,500}?)? has been denied",
          "Claude Code's permission settings refused a tool or one command of it (its deny rules, its mode "
          "without prompts); the agent may not run it"),
    Wall("chown_root", r"requested permissions to (?:write to|edit|read|use|run|execute|fetch) .{1,400}?, "
          r"but you haven't granted it yet",
          "the agent's permission mode refused a tool use; only the human can grant it (Claude Code)"),
    Wall("chown_root", r"(?m)\bThe following parts? requires? approval: \S"
          r"|^(?:Error: )?This (?:Bash )?command requires approval\b",
          "Claude Code's permission mode held a command for an approval no one gave (the human alone can grant it)"),
    Wall("chown_root", r"\bwas blocked\. For security, [\w ]{2,40} may only (?:change directories|access|read|write)",
          "the agent's own sandbox refused a directory outside its allowed ones (Claude Code)"),
    Wall("network_down_download", r"\bWeb fetch error: url_not_accessible\b",
          "the agent's own fetch tool (Anthropic's server-side web fetch) could not reach the page"),
    Wall("network_down_download",
          r"\bUnable to verify if domain \S+ is safe to fetch\. This may be due to network restrictions\b",
          "Claude Code's fetch tool cannot reach the service that vets a domain before it fetches (the network, "
          "a proxy or a firewall stops it)"),
)
