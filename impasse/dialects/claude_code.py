"""How Claude Code reports a command's result: a failed Bash call's result marked `is_error` begins
with `Exit code N`; one with no such line failed with its status unrecorded (read as 1). Read alike by
the runtime (agents/tool_results.py) and the annotator (analysis/formats/claude_code.py), so a run's
steps.jsonl and its own transcript annotate alike."""

from __future__ import annotations

import re

EXIT_LINE = re.compile(r"Exit code (-?\d+)\b\n?")  # matched at the result's start
# A failure recorded without its exit status reads as 1; every format reader (analysis/formats/common.py)
# takes this one value, so the runtime and the annotator cannot disagree on it.
FAILED_STATUS_UNKNOWN = 1
