"""External agents (Claude Code, Codex CLI, mini-swe-agent) run under impasse's blockers: which
versions are pinned (`pins.py`, `agents.lock`), and their binaries fetched, checked and cached on
the host for a read-only mount into the container (`install.py`)."""
