"""Trajectories in one normal form, whatever harness wrote them."""

from __future__ import annotations

from dataclasses import dataclass, field

from impasse.analysis.session_log import SessionLog
from impasse.vocabulary import Tool

OTHER = "other"  # Action.tool of a call that is neither a command, a file edit nor an ending

# What a tool is, whatever a harness calls it (Action.kind, Obs.kind; docs/metrics.md "Foreign tool
# kinds"): the onset rules read a blocker string differently in a command's output than in the text
# of a file the agent read or a listing it asked for.
COMMAND = "command"  # runs a command: bash, Bash, exec_command, shell, PowerShell …
READ = "read"  # returns a file's or a page's text: Read, view, web fetch …
LIST = "list"  # returns matches or names: Grep, Glob, LS, find_file …
WRITE = "write"  # changes a file: edit_file, Edit, Write, apply_patch …
ASK = "ask"  # asks a human: escalate_to_human, AskUserQuestion …
KINDS = (COMMAND, READ, LIST, WRITE, ASK, OTHER)
TOOL_KINDS = {Tool.BASH: COMMAND, Tool.EDIT_FILE: WRITE, Tool.ESCALATE_TO_HUMAN: ASK}  # impasse's own tools


@dataclass(slots=True)
class Action:
    tool: str  # bash | edit_file | task_complete | escalate_to_human | other
    command: str = ""  # bash command (or the raw action text of a foreign harness)
    path: str = ""  # edit_file target
    content: str = ""  # edit_file new text
    message: str = ""  # task_complete summary / escalate_to_human reason
    kind: str = ""  # one of KINDS; left empty, the kind of impasse's own tool (`tool`)

    def __post_init__(self):
        if not self.kind:
            self.kind = TOOL_KINDS.get(self.tool, OTHER)


@dataclass(slots=True)
class Obs:
    output: str
    exit_code: int | None = None  # None: the format does not record it
    injected: str | None = None  # a failure the harness injected (flaky_sandbox)
    executed: bool = True
    timed_out: bool = False
    sensors: dict | None = None  # runtime sensors' deltas (our own runs only)
    kind: str = COMMAND  # the kind of the call it answers (KINDS)


def obs_from_dict(o: dict) -> Obs:
    """An observation as impasse writes it (steps.jsonl, the atlas fixtures) in the normal form."""
    return Obs(o["output"], o["exit_code"], o.get("injected"), o.get("executed", True), o.get("timed_out", False),
               o.get("sensors"), TOOL_KINDS.get(o.get("tool", Tool.BASH), OTHER))


def obs_of(observation) -> Obs:
    """An observation of impasse's own episode (episode.records.Observation) in the normal form."""
    return Obs(observation.output, observation.exit_code, observation.injected, observation.executed,
               observation.timed_out, observation.sensors, TOOL_KINDS.get(observation.tool, OTHER))


@dataclass(slots=True)
class NStep:
    index: int
    text: str
    actions: list[Action] = field(default_factory=list)
    observations: list[Obs] = field(default_factory=list)


@dataclass(slots=True)
class NTrajectory:
    run_id: str
    source: str  # impasse | mini-swe-agent | swe-agent | atif
    path: str
    model: str
    condition: str | None
    task: str
    steps: list[NStep]
    ending: str  # task_complete | escalate_to_human | budget_exhausted | transport_error | harness_error | unknown
    outcome: str | None = None  # as the run recorded it (ours), else derived
    resolved: bool | None = None  # runtime truth, when known
    blocker_active_at_end: bool | None = None
    integrity_ok: bool | None = None
    blocker_active_at_start: bool | None = None  # the harness's probe before step 1 (None: not recorded)
    tampering: list[str] = field(default_factory=list)  # routes by which the truth was forged (ours, ATIF)
    injected: dict = field(default_factory=dict)
    finished: bool = True
    lifted_by_operator: bool = False  # the operator lifted the blocker (ours): its absence at the end is no removal
    problems: list[str] = field(default_factory=list)
    log: SessionLog | None = None  # what the log says beyond its steps: times, tokens, human turns, how it stopped

    @property
    def length(self) -> int:
        return len(self.steps)
