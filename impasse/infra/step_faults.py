"""flaky_sandbox for an agent that runs its own commands inside the container (Claude Code, Codex,
opencode, Gemini CLI, Qwen Code).

impasse makes none of that agent's calls, so there is no exec of impasse's for the engine to refuse.
The fault moves into the container itself: the same seeded choice as impasse's own loop
(`FlakyExec.decide`, call by call, test runs always) picks steps, and for a chosen step the process
table of the agent's commands is held full — the pids limit of their own cgroup (infra/cgroups.py)
set below what already runs — from the moment the relay hands the agent the step's calls until the
agent's next model request brings their results. The shell the agent starts joins that cgroup, and
its first fork there is refused by the kernel (EAGAIN): the command fails as bash says a refused
fork (`bash: fork: Resource temporarily unavailable`, status 254), and the agent reports it its own
way. The agent's own process and threads stay in the container's cgroup, untouched by the hold: an
earlier version held the container's whole table, and Claude Code's and opencode's runtimes aborted
(SIGABRT) when it refused them a thread. Without a child cgroup (a container not made for it) the
container's own table is held, as before.
The pids cgroup counts each refused fork: that count, read on the host, says whether the hold met
anything. The model forwarder and the MCP server start nothing while they run, so the request
that ends the hold gets through."""

from __future__ import annotations

import time

import docker.errors

from impasse.infra.cgroups import Commands
from impasse.infra.injectors import FlakyExec
from impasse.infra.sandbox import Sandbox, SandboxUnavailable
from impasse.infra.sensors import PIDS_FILES, cgroup_file, read_counter

HELD_LIMIT = 1  # below what the container already runs: every new process or thread is refused
MODE = "process_table_full"


class StepFaults:
    def __init__(self, injector: FlakyExec, box: Sandbox, commands: Commands | None = None) -> None:
        self.injector, self.box, self.commands = injector, box, commands
        self.limit = pids_limit(box)  # 0: none
        # The held pids cgroup's counts, found once (None: not here)
        self.events = commands.pids_events if commands else cgroup_file(box.id, PIDS_FILES)
        self.held: dict | None = None  # the log entry of the hold in place
        self.refused_before: int | None = None

    def hold(self, step: int, calls: list[tuple[str, bool]]) -> bool:
        """Before the agent gets step `step`'s calls — each as impasse's own loop shows it to the
        injector (a bash command, or the tool's name for an edit) and whether the agent starts a
        process for it: hold the process table full if the seeded choice hits one that does. A hit
        on an edit the agent makes in its own process meets nothing (a full process table does not
        stop a write); it is logged as not held, and the agent is not made to fail at its plumbing."""
        hits = [(self.injector.decide(shown), starts) for shown, starts in calls]
        if not any(hit for hit, _ in hits):
            return False
        entry = {"call": self.injector.calls, "step": step, "mode": MODE, "at": time.time()}
        if not any(hit and starts for hit, starts in hits):
            self.injector.log.append(entry | {"held": False, "refused": False,
                                              "why": "the agent's edit runs in its own process, not a new one"})
            return False
        self.refused_before = self.forks_refused()
        self.hold_table(True)
        self.held = entry
        return True

    def release(self) -> str | None:
        """The step's results are back: the limit as the card set it. The mode, if the hold met a
        fork (or the count cannot be read here, a remote engine: the hold was in place all the same)."""
        if self.held is None:
            return None
        entry, self.held = self.held, None
        self.hold_table(False)
        before, after = self.refused_before, self.forks_refused()
        entry["forks_refused"] = None if before is None or after is None else after - before
        entry["held"], entry["refused"] = True, entry["forks_refused"] != 0
        self.injector.log.append(entry)
        return MODE if entry["refused"] else None

    def forks_refused(self) -> int | None:
        return read_counter(self.events, "max") if self.events else None

    def hold_table(self, held: bool) -> None:
        if self.commands is None:  # the container's table: held, or back to the card's limit
            set_pids_limit(self.box, HELD_LIMIT if held else self.limit)
        else:  # the commands' own: held, or none of its own (the container's, the card's, still holds)
            self.commands.set_pids(HELD_LIMIT if held else None)


def pids_limit(box: Sandbox) -> int:
    """The container's pids limit as it was started (0: none)."""
    return (box.container.attrs.get("HostConfig") or {}).get("PidsLimit") or 0


def set_pids_limit(box: Sandbox, limit: int) -> None:
    """Through the engine's update call: docker-py's `update_container` takes no pids limit."""
    api = box.container.client.api
    try:
        response = api._post_json(api._url("/containers/{0}/update", box.id), data={"PidsLimit": limit})
        api._raise_for_status(response)
    except docker.errors.APIError as err:  # NotFound (the container gone) among them
        raise SandboxUnavailable(f"the container's pids limit could not be set to {limit}: {err}") from err
