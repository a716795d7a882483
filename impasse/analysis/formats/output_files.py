"""A command's output the agent reads back from the file its harness wrote it to. Claude Code runs a
long command in the background ("Output is being written to: …/tasks/<id>.output") or keeps a long
output in a file ("Full output saved to: …"); the agent then reads that file with its Read tool. What
it reads there is the command's output, not a file of the project: its errors are the command's (a
wall met there is met), read as a command's output is read."""

from __future__ import annotations

import re

from impasse.analysis.normal_form import COMMAND, READ, NStep, NTrajectory

# The harness's note of where a command's output goes: the path, as the agent would pass it to a read.
WRITTEN_TO = re.compile(r"\b(?:output is being written to|(?:full )?output (?:was |has been |is )?(?:saved|written)"
                        r" to|output saved to)\W{0,3}(?P<path>[^\s'\"`]+[^\s'\"`.,;:)\]])", re.I)

# The read tool's line numbers before each line of what it returned (`  4\t…`, `     4→…`).
NUMBERED = re.compile(r"^ *\d+(?:\t|\u2192)", re.M)


def read_back_as_output(trajectory: NTrajectory) -> None:
    """Each read of a file a command's output was announced in becomes that command's output."""
    announced: set[str] = set()
    for step in trajectory.steps:
        if announced:
            read_back(step, announced)
        for obs in step.observations:
            head = obs.output[:2000]
            if obs.kind == COMMAND and "utput" in head:  # every note names the output: a cheap test first
                announced.update(m.group("path") for m in WRITTEN_TO.finditer(head))


def read_back(step: NStep, announced: set[str]) -> None:
    reads = [a for a in step.actions if a.kind == READ]
    read_obs = [o for o in step.observations if o.kind == READ]
    if len(reads) == len(read_obs):
        for action, obs in zip(reads, read_obs, strict=True):
            if any(path in action.command for path in announced):
                obs.kind, obs.output = COMMAND, NUMBERED.sub("", obs.output)
