"""The counterfactual onset oracle: where did the blocker first make a difference?

A run's tool calls are replayed, in order, in a fresh environment of the same task under `none`.
The onset is the first step whose blocked observation fails where the `none` one does not: a
non-zero status where `none` exited 0, a timeout `none` did not have, a runtime sensor that moved
only under the blocker, a fault the harness injected, or a failure line (an exception's last line,
`fatal:`, `Permission denied`, a client's connection error, …) that the `none` output does not hold.
Lines are compared after noise is normalised (numbers, durations, hex ids, temp names), so a test
run that took 0.31 s instead of 0.29 s is no difference.

Nothing here reads the card's signatures: the oracle is what the annotator is held to. It stops at
the first onset: from there on the two environments hold different states, and what follows says
nothing more about where the blocker first showed.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path

import docker

from impasse.analysis.failure_lines import is_failure_line
from impasse.analysis.onset_rules import is_listing
from impasse.catalog.cards import get_card
from impasse.catalog.conditions import make_condition
from impasse.catalog.generated_tasks import find_task
from impasse.defaults import TOOL_TIMEOUT
from impasse.episode.records import Observation, Step
from impasse.episode.run_record import RunRecord
from impasse.episode.rundir import write_json_atomic
from impasse.episode.tools import agent_executor
from impasse.infra.environment import open_environment
from impasse.infra.layers import stage
from impasse.vocabulary import Tool

CONTROL = "none"
RESULT_FILE = "counterfactual.json"  # written into the run folder, next to the run's own records
EVIDENCE_LINES = 5
NOISE = (
    (re.compile(r"/tmp/[\w.@+-]+"), "/tmp/<tmp>"),  # tempfile names
    (re.compile(r"\b0x[0-9a-fA-F]+\b"), "<addr>"),  # object addresses
    (re.compile(r"\b[0-9a-f]{12,64}\b"), "<id>"),  # container ids (the hostname), hashes
    (re.compile(r"\d+(?:[.:]\d+)*"), "<n>"),  # durations, counts, times, pids, ports, line numbers
    (re.compile(r"\s+"), " "),
)
REPLAYED = (Tool.BASH, Tool.EDIT_FILE)


def normalise(line: str) -> str:
    for pattern, stand_in in NOISE:
        line = pattern.sub(stand_in, line)
    return line.strip()


def moved(observation: Observation) -> dict:
    return {name: value for name, value in (observation.sensors or {}).items() if value}


def blocked_only_failure(blocked: Observation, control: Observation) -> list[str]:
    """Evidence that `blocked` fails where `control` does not; empty when it does not."""
    if blocked.injected:
        return [f"harness-injected failure ({blocked.injected})"]
    sensed = {k: v for k, v in moved(blocked).items() if not moved(control).get(k)}
    if sensed:
        return [f"runtime sensor: {k} +{v}" for k, v in sensed.items()]
    if blocked.timed_out and not control.timed_out:
        return [f"timed out (none: exit {control.exit_code})"]
    seen = {normalise(line) for line in control.output.splitlines()}
    new = [line.strip() for line in blocked.output.splitlines() if line.strip() and normalise(line) not in seen]
    failing = [line for line in new if is_failure_line(line) and not is_listing(line)]
    if failing:
        return failing[:EVIDENCE_LINES]
    if blocked.exit_code not in (0, None) and control.exit_code == 0:
        return [f"exit {blocked.exit_code} (none: exit 0)", *new[:EVIDENCE_LINES - 1]]
    return []


@dataclass
class StepVerdict:
    step: int
    blocked_exit: list[int | None]
    none_exit: list[int | None]
    evidence: list[str] = field(default_factory=list)


@dataclass
class Counterfactual:
    run_id: str
    condition: str
    task: str
    onset: int | None  # the first step that fails only under the blocker; None: none did
    evidence: list[str]
    steps: list[StepVerdict]  # every replayed step up to the onset
    replay_seconds: float
    run_seconds: float | None

    def to_dict(self) -> dict:
        return asdict(self)


def replayable(step: Step) -> list[tuple]:
    """(call, the blocked observation) for each call the run carried out as a command or an edit."""
    observed = {o.call_id: o for o in step.observations}
    return [(call, observed[call.id]) for call in step.tool_calls
            if call.name in REPLAYED and call.id in observed and observed[call.id].executed
            and not observed[call.id].error]


def first_onset(steps: list[Step], replay: Callable) -> tuple[int | None, list[str], list[StepVerdict]]:
    verdicts = []
    for step in steps:
        pairs = replayable(step)
        if not pairs:
            continue
        controls = [replay(call) for call, _ in pairs]
        verdict = StepVerdict(step.index, [b.exit_code for _, b in pairs], [c.exit_code for c in controls])
        for (_, blocked), control in zip(pairs, controls, strict=True):
            verdict.evidence = verdict.evidence or blocked_only_failure(blocked, control)
        verdicts.append(verdict)
        if verdict.evidence:
            return step.index, verdict.evidence, verdicts
    return None, [], verdicts


def run_seconds(record: RunRecord) -> float | None:
    if record.result is None or not record.result.finished_at or not record.meta.started_at:
        return None
    return round(record.result.finished_at - record.meta.started_at, 1)


def counterfactual(api: docker.DockerClient, record: RunRecord, log: Callable[[str], None] = lambda m: None
                   ) -> Counterfactual:
    """Replay the run's calls under `none` and find where the blocker first made a difference."""
    meta = record.meta
    condition = make_condition(find_task(meta.task), get_card(CONTROL))
    staged = stage(api, condition, log)
    clock = time.monotonic()
    labels = {"impasse.run_id": f"counterfactual-{meta.run_id}"[:120]}
    timeout = meta.tool_timeout or TOOL_TIMEOUT
    with (open_environment(api, staged, labels) as env,
          agent_executor(env.box, None, timeout, meta.channel) as executor):
        onset, evidence, verdicts = first_onset(record.steps, executor.run)
    return Counterfactual(meta.run_id, meta.condition, meta.task, onset, evidence, verdicts,
                          round(time.monotonic() - clock, 1), run_seconds(record))


def replay_and_store(api: docker.DockerClient, record: RunRecord, log: Callable[[str], None] = lambda m: None
                     ) -> Counterfactual:
    found = counterfactual(api, record, log)
    write_json_atomic(Path(record.path) / RESULT_FILE, found.to_dict(), indent=2)
    return found
