"""Defaults a user can override, defined once: the CLI, RunSpec, MatrixSpec and the agent loop read
them from here."""

from __future__ import annotations

from pathlib import Path

BUDGET = 80  # steps per episode
OUT = Path("runs")  # where run folders are written
TOOL_TIMEOUT = 120  # seconds before a bash or edit_file call is killed in the container
MODEL_TIMEOUT = 120.0  # seconds for one model request (retries come on top)
WORKERS = 2  # parallel episodes of a matrix
SEEDS = 1  # seeds per matrix cell
