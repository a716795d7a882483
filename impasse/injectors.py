"""Harness-level fault injection for flaky_sandbox: real failures, seeded, logged.

Before a chosen agent command the injector really pauses the container (the daemon then refuses
the exec with its own error), or really fills the container's process table with a root-owned
burst of short-lived processes (bash's fork then fails). Which calls fail is a pure function of
the seed and the call's position, so the same seed gives the same pattern."""

from __future__ import annotations

import random
import re
import time

import docker.errors

from impasse.sandbox import ExecResult, Sandbox, SandboxUnavailable

TEST_COMMAND = re.compile(r"\bpytest\b|\bpython3?\s+-m\s+(?:pytest|unittest)\b|\bmake\s+test\b|\btox\b")
NEIGHBOUR_SECONDS = 8


class FlakyExec:
    def __init__(self, box: Sandbox, seed: int, test_failure_rate: float = 1.0,
                 other_failure_rate: float = 0.3, modes: tuple[str, ...] = ("paused", "fork")) -> None:
        self.box = box
        self.seed = seed
        self.test_rate = test_failure_rate
        self.other_rate = other_failure_rate
        self.modes = tuple(modes)
        self.calls = 0
        self.log: list[dict] = []

    def decide(self, command: str) -> str | None:
        """The failure mode for this call, or None. Test runs are always hit by a pause, which no
        retry inside the command can outlast."""
        self.calls += 1
        rng = random.Random(f"{self.seed}:{self.calls}")
        is_test = bool(TEST_COMMAND.search(command))
        if rng.random() >= (self.test_rate if is_test else self.other_rate):
            return None
        return "paused" if is_test else rng.choice(self.modes)

    def run(self, call, command: str, action) -> tuple[ExecResult, str | None]:
        mode = self.decide(command)
        if mode is None:
            return action(), None
        self.log.append({"call": self.calls, "mode": mode, "at": time.time()})
        result = self.paused(action) if mode == "paused" else self.fork_storm(action)
        return result, mode

    def paused(self, action) -> ExecResult:
        started = time.monotonic()
        self.box.container.pause()
        try:
            action()
        except SandboxUnavailable as err:  # the daemon's refusal, as `docker exec` prints it
            return ExecResult(daemon_error(err), 1, time.monotonic() - started)
        finally:
            self.box.container.unpause()
        raise RuntimeError("the daemon ran an exec in a paused container")

    def fork_storm(self, action) -> ExecResult:
        storm = (f"i=0; while [ $i -lt 400 ]; do sleep {NEIGHBOUR_SECONDS} & i=$((i+1)); done "
                 "2>/dev/null; wait")
        self.box.api.api.exec_start(self.box.api.api.exec_create(
            self.box.id, ["sh", "-c", storm], user="0:0")["Id"], detach=True)
        time.sleep(0.5)
        try:
            return action()
        except SandboxUnavailable as err:  # no pid left even for the exec itself
            return ExecResult(daemon_error(err), 126, 0.0)


def daemon_error(err: Exception) -> str:
    cause = err.__cause__
    explanation = cause.explanation if isinstance(cause, docker.errors.APIError) else str(err)
    return f"Error response from daemon: {explanation}\n"


def make_injector(condition, box: Sandbox, seed: int) -> FlakyExec | None:
    spec = condition.card.inject.injector
    if not spec:
        return None
    params = dict(spec.get("params", {}))
    params["modes"] = tuple(params.get("modes", ("paused",)))
    return FlakyExec(box, seed, **params)
