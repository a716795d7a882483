"""The mini-swe-agent console log (Terminal-Bench `sessions/agent.log`), stepped as LABELING.md
rule 4 says: ANSI escapes, carriage returns and the spinner stripped; each `mini-swe-agent (step N,
$X):` line starts a step; its action is the text up to the first `User:` line, its observation the
text after that line up to the next `────` separator or header. Text before the first header (the
install, the task) and after the last separator (crash tracebacks) is ignored."""

from __future__ import annotations

import re
from pathlib import Path

from impasse.analysis.formats.common import BASH_BLOCK, ImportProblem, bash_action
from impasse.analysis.formats.mini import parse_mini_observation
from impasse.analysis.normal_form import NStep, NTrajectory, Obs
from impasse.vocabulary import Ending, Tool

HEADER = re.compile(r"^mini-swe-agent \(step (\d+), \$[\d.]+\):$")
FIRST_HEADER = re.compile(r"^\s*mini-swe-agent \(step 1, \$[\d.]+\):\s*$", re.M)


def is_separator(line: str) -> bool:
    return line.startswith("────")


def console_step(index: int, lines: list[str]) -> NStep:
    """One step from the lines after its header (up to the next header)."""
    user = next((n for n, line in enumerate(lines) if line.strip() == "User:"), None)
    action_text = "\n".join(lines[:user] if user is not None else lines).strip()
    blocks = BASH_BLOCK.findall(action_text)
    step = NStep(index, action_text, [bash_action(blocks[0])] if len(blocks) == 1 else [])
    if user is not None:
        rest = lines[user + 1:]
        end = next((n for n, line in enumerate(rest) if is_separator(line)), len(rest))
        content = "\n".join(rest[:end]).strip("\n")
        step.observations.append(parse_mini_observation(content.strip()) or Obs(content, None))
    return step


def from_console(text: str, path: Path) -> NTrajectory:
    """`text` as it reads, already stripped (`common.strip_console`, done once when the file is read)."""
    lines = text.split("\n")
    starts = [n for n, line in enumerate(lines) if HEADER.match(line.strip())]
    if not starts:
        raise ImportProblem(f"{path}: not a mini-swe-agent console log (no `mini-swe-agent (step N, $X):` line)")
    steps = [console_step(k, lines[start + 1:end]) for k, (start, end)
             in enumerate(zip(starts, [*starts[1:], len(lines)], strict=True), 1)]
    last = [a.tool for a in steps[-1].actions]
    ending = Ending.TASK_COMPLETE if Tool.TASK_COMPLETE in last else Ending.UNKNOWN
    named = path.parent.parent.name if path.name == "agent.log" and path.parent.name == "sessions" else ""
    return NTrajectory(run_id=named or path.stem, source="mini-swe-agent-console", path=str(path),
                       model="unknown", condition=None, task=named or path.stem, steps=steps, ending=ending)
