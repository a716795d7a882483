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

from impasse.infra.sandbox import ExecResult, Sandbox, SandboxUnavailable
from impasse.vocabulary import Tool

TEST_COMMAND = re.compile(r"\bpytest\b|\bpython3?\s+-m\s+(?:pytest|unittest)\b|\bmake\s+test\b|\btox\b")
MODES = ("paused",)


def shown_to_injector(name: str, arguments: dict) -> str | None:
    """What the seeded choice reads of a call: a bash call's command, an edit as the tool's name
    (never a test run); None for the calls no fault can meet (the verdict tools)."""
    if name == Tool.BASH:
        return str(arguments.get("command", ""))
    return Tool.EDIT_FILE.value if name == Tool.EDIT_FILE else None


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
        result, refused = self.paused(plain or action)
        self.log.append({"call": self.calls, "mode": mode, "at": time.time(), "refused": refused})
        return result, (mode if refused else None)

    def paused(self, action) -> tuple[ExecResult, bool]:
        """Run the call against the paused container. Normally the daemon refuses it; should the
        pause not have taken hold yet, the call ran for real and its result stands, not injected."""
        started = time.monotonic()
        self.set_paused(True)
        try:
            return action(), False
        except SandboxUnavailable as err:  # the daemon's refusal, as `docker exec` prints it
            return ExecResult(daemon_error(err), 1, time.monotonic() - started), True
        finally:
            self.set_paused(False)

    def set_paused(self, paused: bool, attempts: int = 10) -> None:
        """Pause or unpause, tolerating a daemon that is slow to report the state it reached."""
        container = self.box.container
        for attempt in range(attempts):
            try:
                (container.pause if paused else container.unpause)()
                if self.state_is(paused):
                    return
                continue
            except docker.errors.APIError as err:
                if ("already paused" if paused else "is not paused") in str(err):
                    return
                if attempt == attempts - 1:
                    raise
                time.sleep(0.2)

    def state_is(self, paused: bool, wait: float = 2.0) -> bool:
        deadline = time.monotonic() + wait
        while time.monotonic() < deadline:
            self.box.container.reload()
            if (self.box.container.status == "paused") == paused:
                return True
            time.sleep(0.05)
        return False


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
