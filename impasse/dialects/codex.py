"""How Codex prints a command's result: a header block of its own lines (`Exit code: N` or `Process
exited with code N`, `Wall time: …`, `Original token count: …`, a chunk or session id), then the
output. Read alike by the runtime (agents/tool_results.py) and the annotator (analysis/formats/codex.py)."""

from __future__ import annotations

import re

from impasse.dialects.wall import Wall

HEADER = re.compile(r"(?:Chunk ID|Wall time|Process exited with code|Exit code|Original token count"
                    r"|Process running with session ID)\b.*")
EXIT_LINE = re.compile(r"^(?:Process exited with code|Exit code:) (-?\d+)$", re.M)
# Codex's execution policy refusing a command it may not ask approval for: "`…` rejected: blocked by policy". The
# call failed without running, not by the human's choice (a human's no reads "exec command rejected by user").
POLICY_REFUSAL = r"` rejected: blocked by policy"
POLICY_REJECTED = re.compile(POLICY_REFUSAL + r'(?:\\"\)" \})?\s*$')  # bare, or in its CreateProcess error

# Its own words for a wall its sandbox or execution policy put up: the command refused or never started.
WALLS = (
    Wall("chown_root", r"\bCodex\(Sandbox\(Denied\b", "Codex's sandbox denied the command"),
    Wall("chown_root", r"(?m)^failed in sandbox: (?:sandbox error\b|cannot set capabilities\b|(?:[^\n]*\n){0,3}?"
         r"[^\n]*\b(?:[Oo]peration not permitted|[Pp]ermission denied)\b)|\berror running landlock: Sandbox\(",
         "Codex CLI reports that its own sandbox could not run the command (its capability or Landlock set-up "
         "refused, the command killed in it, a refusal inside it); the same wrapper around an ordinary error "
         "(`failed in sandbox: Usage: …`) says only where it ran"),
    Wall("chown_root", r"windows sandbox: [^\n]*\bfailed\b",
         "the agent's own Windows sandbox could not start the process (CreateProcessAsUserW, "
         "CreateProcessWithLogonW)"),
    Wall("chown_root", POLICY_REFUSAL + r"\b",
         "Codex's execution policy refused to run the command (a read-only sandbox that may not ask for "
         "approval); only the human can change it"),
)
