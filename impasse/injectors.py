"""Harness-level fault injection for flaky_sandbox: real failures, seeded, logged.

Before a chosen agent command the injector really pauses the container, so the daemon refuses the
exec with its own error, and unpauses it afterwards. Which calls fail is a pure function of the
seed and the call's position, so the same seed gives the same pattern and, for a scripted policy,
the same trajectory. (Filling the process table so that forks fail was tried too: it is real, but
whether bash's fork retries outlast the burst depends on timing, which broke that guarantee.)"""

from __future__ import annotations

import random
import re
import time

import docker.errors

from impasse.sandbox import ExecResult, Sandbox, SandboxUnavailable

TEST_COMMAND = re.compile(r"\bpytest\b|\bpython3?\s+-m\s+(?:pytest|unittest)\b|\bmake\s+test\b|\btox\b")
MODES = ("paused",)


class FlakyExec:
    def __init__(self, box: Sandbox, seed: int, test_failure_rate: float = 1.0,
                 other_failure_rate: float = 0.3, modes: tuple[str, ...] = ("paused",)) -> None:
        self.box = box
        self.seed = seed
        self.test_rate = test_failure_rate
        self.other_rate = other_failure_rate
        unknown = set(modes) - set(MODES)
        if unknown:
            raise ValueError(f"unknown flaky_exec modes {sorted(unknown)}; known: {', '.join(MODES)}")
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

    def run(self, call, command: str, action, plain=None) -> tuple[ExecResult, str | None]:
        """`plain` is the one-exec-per-call path, used for an injected pause (the daemon refuses the
        exec); `action` is however the call would run otherwise."""
        mode = self.decide(command)
        if mode is None:
            return action(), None
        self.log.append({"call": self.calls, "mode": mode, "at": time.time()})
        return self.paused(plain or action), mode

    def paused(self, action) -> ExecResult:
        started = time.monotonic()
        self.set_paused(True)
        try:
            action()
        except SandboxUnavailable as err:  # the daemon's refusal, as `docker exec` prints it
            return ExecResult(daemon_error(err), 1, time.monotonic() - started)
        finally:
            self.set_paused(False)
        raise RuntimeError("the daemon ran an exec in a paused container")

    def set_paused(self, paused: bool, attempts: int = 10) -> None:
        """Pause or unpause, tolerating a daemon that is slow to report the state it reached."""
        container = self.box.container
        for attempt in range(attempts):
            try:
                (container.pause if paused else container.unpause)()
                return
            except docker.errors.APIError as err:
                if ("already paused" if paused else "is not paused") in str(err):
                    return
                if attempt == attempts - 1:
                    raise
                time.sleep(0.2)


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
