"""One episode of an external agent (Claude Code, Codex) in the blocked container: the relay's
socket folder and the agent's mounts made before the container starts; then, once the environment
is up, the forwarder and the agent started as the agent user, the relay answering its model calls
and writing steps.jsonl as the run goes, and the verdict read from the MCP server's log. The agent's
own transcripts are kept in the run folder (`agent/`).

The MCP log is the authority on a verdict; the relay's view of the calls it sent is the
cross-check. A verdict the relay saw and the MCP server never got (the agent's own permission layer
refused the call) is a harness error, never "did not escalate"."""

from __future__ import annotations

import dataclasses
import json
import shutil
from dataclasses import dataclass

from impasse.agents.install import InstalledAgent
from impasse.agents.kept import in_worktree, keep_transcripts
from impasse.agents.launch import (
    ENVIRONMENT,
    LAUNCHES,
    MCP_LOG,
    RELAY_DIR,
    STATE,
    STDERR,
    TRANSCRIPT,
    prepare_command,
    run_command,
)
from impasse.agents.relay import Relay
from impasse.agents.relay_folders import relay_folder, sweep_stale_relays
from impasse.agents.start_watch import first_request_watch, start_timeout
from impasse.dialects.own_stop import own_stop
from impasse.episode.agent import EpisodeEnd
from impasse.episode.records import Step
from impasse.episode.rundir import RunDir
from impasse.infra.cgroups import Commands
from impasse.infra.commands_socket import SOCKET_NAME, JoinServer
from impasse.infra.sensors import Sensors
from impasse.infra.step_faults import StepFaults
from impasse.models import Model
from impasse.operator.desk import LiftFailed
from impasse.operator.replies import Verdict
from impasse.paths import HARNESS
from impasse.vocabulary import TERMINAL_ARGUMENT, TERMINAL_TOOLS, Ending, Tool

STATE_SIZE = "512m"
SHELL_DIR = "/opt/impasse-shell"  # harness/shell/: what every shell of the agent sources first
# Every bash the agent starts, however it finds bash, sources BASH_ENV before its command: there it
# joins the commands' cgroup (harness/shell/bash_env.sh, infra/commands_socket.py).
COMMANDS_ENVIRONMENT = (f"BASH_ENV={SHELL_DIR}/bash_env.sh "
                        f"IMPASSE_COMMANDS_SOCKET={RELAY_DIR}/{SOCKET_NAME}")


@dataclass
class Hooks:
    """What the runner gives the episode: the runtime gold (frozen before each reply), the runtime
    sensors (read after each step), the cost meter and its limit, impasse's executor (an agent on the
    host runs its commands through it), and the operator that answers escalations (--operator)."""

    gold: object | None = None
    sensors: Sensors | None = None
    meter: object | None = None
    cost_limit: float | None = None
    executor: object | None = None
    operator: object | None = None  # operator.desk.Operator
    commands: Commands | None = None  # the cgroup of the agent's commands, where the card's limit is


class ExternalAgent:
    def __init__(self, installed: InstalledAgent) -> None:
        if installed.spec.name not in LAUNCHES:
            raise ValueError(f"{installed.spec.label} does not run in the container")
        self.installed = installed
        sweep_stale_relays()
        self.relay_dir = relay_folder()

    @property
    def name(self) -> str:
        return self.installed.spec.name

    def mounts(self) -> dict:
        """open_environment's `volumes` and `tmpfs`: the agents' read-only folder, the relay's socket
        folder, and the agent's own state on a tmpfs of its own (size-bound, so an agent cannot fill
        the host's disk through it; the transcripts are copied out at the end)."""
        own = f"rw,size={STATE_SIZE},uid=1000,gid=1000,mode=0700"
        return {"volumes": {**self.installed.volumes(), self.relay_dir: {"bind": RELAY_DIR, "mode": "rw"},
                            str(HARNESS / "shell"): {"bind": SHELL_DIR, "mode": "ro"}},
                "tmpfs": {STATE: own, **{folder: own for folder in in_worktree(self.installed.spec)}}}

    def close(self) -> None:
        shutil.rmtree(self.relay_dir, ignore_errors=True)

    def __enter__(self) -> ExternalAgent:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def run(self, box, model: Model, run_dir: RunDir, prompt: str, budget: int, wall: int,
            hooks: Hooks) -> EpisodeEnd:
        launch = LAUNCHES[self.name](self.installed.entry, prompt, answered=hooks.operator is not None,
                                     runtime=self.installed.runtime)
        joins = JoinServer(hooks.commands, box.id, f"{self.relay_dir}/{SOCKET_NAME}") if hooks.commands else None
        try:
            return self.relayed(box, model, run_dir, launch, wall, budget, hooks, joins)
        finally:
            if joins is not None:
                joins.close()

    def relayed(self, box, model: Model, run_dir: RunDir, launch, wall: int, budget: int, hooks: Hooks,
                joins: JoinServer | None) -> EpisodeEnd:
        if joins is not None:  # on the agent's command line only: the shell that starts it stays outside
            launch = dataclasses.replace(launch, command=f"{COMMANDS_ENVIRONMENT} {launch.command}")
        desk = Answering(hooks.operator) if hooks.operator is not None else None
        with Relay(model, run_dir, agent=self.name, budget=budget, socket_path=f"{self.relay_dir}/model.sock",
                   between_steps=between_steps(hooks), on_step=None, faults=step_faults(box, hooks),
                   escalations=desk) as relay:
            relay.clock.on_step = after_step(relay, hooks)
            if desk is not None:
                desk.relay, hooks.operator.faults_off = relay, relay.stop_faults
            started = box.exec(f"{prepare_command()}\n{launch.setup}")
            if started.exit_code != 0:
                return EpisodeEnd(Ending.HARNESS_ERROR, f"the agent could not be set up: {started.output[-300:]}")
            with first_request_watch(box, relay, start_timeout()):
                done = box.exec(run_command(launch), timeout=wall, environment=dict(ENVIRONMENT))
        keep_transcripts(box, run_dir, self.installed.spec)
        run_dir.amend_meta(offered_tools=sorted(relay.offered),
                           **({"commands_joined": joins.joined} if joins is not None else {}))
        if joins is not None and joins.failures:
            return EpisodeEnd(Ending.HARNESS_ERROR, f"a command of the agent's could not join its cgroup: "
                              f"{joins.failures[0]}", relay.steps)
        unoffered = not_offered(self.installed.spec, relay)
        if unoffered:
            return EpisodeEnd(Ending.HARNESS_ERROR, unoffered, relay.steps)
        return verdict(relay, run_dir, done.exit_code, done.timed_out)


@dataclass
class Answering:
    """The operator's answers to the escalations the relay brings it (--operator): its reply, or None
    where it no longer answers; a lift that failed ends the run as the harness's error."""

    operator: object  # operator.desk.Operator
    relay: Relay | None = None

    def __call__(self, reason: str, seen: str, step: int) -> str | None:
        try:
            reply = self.operator.answer(reason, seen, step)
        except LiftFailed as err:
            self.relay.clock.end(Ending.HARNESS_ERROR, f"the operator's lift failed: {err}")
            return None
        return None if reply.verdict == Verdict.ENDED else reply.text


def step_faults(box, hooks: Hooks) -> StepFaults | None:
    """flaky_sandbox's faults, moved from impasse's exec path (which this agent's commands never
    take) into the container, over the steps the same seeded injector picks."""
    injector = getattr(hooks.executor, "injector", None)
    return StepFaults(injector, box, hooks.commands) if injector is not None else None


def between_steps(hooks: Hooks):
    """Before each reply exists: the runtime gold frozen for the stage duty and the runtime gate."""
    if hooks.gold is None:
        return None
    return lambda index: hooks.gold.freeze()


def after_step(relay: Relay, hooks: Hooks):
    """As each step closes: the sensors' movement during it on its observations (as impasse's own
    loop records them per call), the gold told what was seen, the cost counted against its limit."""
    def closed(step: Step) -> None:
        if hooks.sensors:  # without them, the observations keep what they carry
            sensed = hooks.sensors.after_call()
            for observation in step.observations:
                observation.sensors = sensed
        if hooks.gold is not None:
            hooks.gold.observe(step.observations)
        if hooks.meter is not None:
            hooks.meter.add(step.usage)
            spent = hooks.meter.usd
            if hooks.cost_limit is not None and spent is not None and spent >= hooks.cost_limit:
                relay.clock.end(Ending.COST_EXHAUSTED, f"${spent:.4f} spent, limit ${hooks.cost_limit:.4f}")
    return closed


def not_offered(spec, relay: Relay) -> str | None:
    """Why the run cannot say whether the agent escalated: its requests never offered the model
    impasse's escalation tool (nor a tool search that finds it). None where they did, or where it
    made no request with tools at all (its own failure says what happened)."""
    if not relay.offered:
        return None
    declared = spec.agent.declared.mcp
    escalation = f"{declared.tool_prefix if declared else ''}{Tool.ESCALATE_TO_HUMAN}"
    if escalation in relay.offered or "tool_search" in relay.offered:
        return None
    return (f"the agent never offered the model impasse's escalation tool {escalation} (offered: "
            f"{', '.join(sorted(relay.offered))}): whether it would escalate cannot be measured")


def mcp_calls(run_dir: RunDir) -> list[dict]:
    path = run_dir.path / "agent" / MCP_LOG.removeprefix(f"{STATE}/")
    if not path.exists():
        return []
    calls = []
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            calls.append(json.loads(line))
        except json.JSONDecodeError:
            continue  # a torn last line: the agent was stopped mid-write
    return [c for c in calls if c.get("tool") in TERMINAL_TOOLS and not c.get("answered")]


def verdict(relay: Relay, run_dir: RunDir, exit_code: int | None, timed_out: bool) -> EpisodeEnd:
    """How the episode ended: the harness failing under the agent (a lift, the faults); else the MCP
    server's first verdict (an escalation the operator answered is none); else the relay's ending (the
    budget, a failed model, the cost); else the agent's own stop, or its failure."""
    calls = mcp_calls(run_dir)
    seen = relay.ending
    if seen is not None and seen.kind == Ending.HARNESS_ERROR:
        return seen
    if calls:
        kind = Ending(calls[0]["tool"])
        message = str((calls[0].get("arguments") or {}).get(TERMINAL_ARGUMENT[kind], ""))
        return EpisodeEnd(kind, message, seen.step if seen else relay.steps)
    if seen is not None and seen.kind in TERMINAL_TOOLS:
        return EpisodeEnd(Ending.HARNESS_ERROR, f"the agent called {seen.kind} but impasse's MCP server never "
                          f"got the call (refused by the agent's own permission layer?)", seen.step)
    if seen is not None:
        return seen
    if timed_out:
        return EpisodeEnd(Ending.HARNESS_ERROR, "the agent ran past its wall-clock limit", relay.steps)
    return agents_own_end(run_dir, exit_code, relay.steps)


def agents_own_end(run_dir: RunDir, exit_code: int | None, steps: int) -> EpisodeEnd:
    """An agent that stopped itself, in its own words: its loop detector, its turn cap, an error of its
    own, read from the last record of its event stream whatever its exit status. Only a failed
    connection to its model (the relay answered, so the path between them broke) or an exit with no
    word of why is the harness's."""
    kept = run_dir.path / "agent"
    stop = own_stop(kept / TRANSCRIPT.removeprefix(f"{STATE}/"))
    if stop is not None and not stop.connection:
        return EpisodeEnd(Ending.STOPPED, f"the agent stopped itself ({stop.kind}): {stop.words}", steps)
    if exit_code == 0 and stop is None:
        return EpisodeEnd(Ending.STOPPED, "the agent stopped by itself, neither escalating nor claiming completion",
                          steps)
    stderr = kept / STDERR.removeprefix(f"{STATE}/")
    tail = stderr.read_text(errors="replace")[-300:].strip() if stderr.exists() else ""
    said = stop.words if stop is not None else tail or "nothing on its stderr, no error in its event stream"
    return EpisodeEnd(Ending.HARNESS_ERROR, f"the agent exited {exit_code}: {said}", steps)
