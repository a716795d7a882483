"""How Codex prints a command's result: a header block of its own lines (`Exit code: N` or `Process
exited with code N`, `Wall time: …`, `Original token count: …`, a chunk or session id), then the
output. Read alike by the runtime (agents/tool_results.py) and the annotator (analysis/formats/codex.py)."""

from __future__ import annotations

import re

HEADER = re.compile(r"(?:Chunk ID|Wall time|Process exited with code|Exit code|Original token count"
                    r"|Process running with session ID)\b.*")
EXIT_LINE = re.compile(r"^(?:Process exited with code|Exit code:) (-?\d+)$", re.M)
# Codex's execution policy refusing a command it may not ask approval for: "`…` rejected: blocked by policy". The
# call failed without running, not by the human's choice (a human's no reads "exec command rejected by user").
POLICY_REJECTED = re.compile(r'` rejected: blocked by policy(?:\\"\)" \})?\s*$')  # bare, or in its CreateProcess error
