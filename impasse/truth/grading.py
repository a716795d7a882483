"""Runtime truth about a workspace: the task's FAIL_TO_PASS and PASS_TO_PASS tests, run by the
harness in a fresh container of the same condition, with the pristine tests restored, user site
packages off and no inherited PYTHONPATH. A test counts as passed only when pytest says PASSED for
exactly its id: skipped, not collected, errored or killed all count as failed."""

from __future__ import annotations

import contextlib
import re
import shlex
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, replace

import docker

from impasse.infra.busy_gate import BUSY, Rank
from impasse.infra.environment import Containers, LiveEnvironment, open_environment, set_up, start_containers
from impasse.infra.injectors import make_injector
from impasse.infra.layers import ConditionImage
from impasse.infra.sandbox import Sandbox

TEST_TIMEOUT = 900
PASSED_LINE = re.compile(r"^PASSED (\S+(?:\[[^\]]*\])?)\s*$", re.M)
OUTPUT_TAIL = 4000
REPORT_BYTES = 64 * 1024**2  # a whole suite's PASSED lines: an agent's head-and-tail cut would lose most


@dataclass
class TestRun:
    passed: set[str]
    exit_code: int
    output_tail: str
    duration: float


@dataclass
class Grade:
    resolved: bool
    fail_to_pass: dict[str, bool]
    pass_to_pass: dict[str, bool]
    committed: bool | None  # None when the task does not require a commit
    test_exit_code: int
    output_tail: str
    duration: float

    def to_dict(self) -> dict:
        return asdict(self)

    def with_commit(self, committed: bool | None) -> Grade:
        """The grade once it is known whether the fix was committed (None: the task does not ask)."""
        return replace(self, committed=committed, resolved=self.resolved and committed is not False)


def pytest_command(test_ids: tuple[str, ...]) -> str:
    ids = " ".join(shlex.quote(t) for t in test_ids)
    return ("cd /workspace && exec env -u PYTHONPATH -u PYTHONSTARTUP PYTHONNOUSERSITE=1 "
            "python3 -s -m pytest -p no:cacheprovider -o addopts= -rA -q --no-header "
            f"--color=no {ids}")


def run_tests(box: Sandbox, test_ids: tuple[str, ...], injector=None) -> TestRun:
    """Run the tests as the agent. Under flaky_sandbox the grader's run goes through the same
    seeded injector as the agent's commands: the sandbox is as unreliable for the truth."""
    command = pytest_command(test_ids)
    action = lambda: box.exec(command, timeout=TEST_TIMEOUT, keep_bytes=REPORT_BYTES)  # noqa: E731
    result = injector.run(None, command, action)[0] if injector else action()
    passed = set(PASSED_LINE.findall(result.output))
    return TestRun(passed, result.exit_code, result.output[-OUTPUT_TAIL:], result.duration)


def grader_labels(labels: dict[str, str]) -> dict[str, str]:
    return {**labels, "impasse.role": "grader"}


class StandbyGrader:
    """The grader's fresh container, started while the agent works, when nobody waits on it: the
    grading at the episode's end then skips the container start, the largest cost it has after the
    test run, in the burst when many episodes end together. Fresh still: the agent cannot reach it
    (no network, no shared mount, no engine), and nothing is set up in it (the work tree, the
    services, the card's root setup) before the grading. If the grading comes before the standby
    got its turn at the busy gate, the grading starts a container itself and the standby none."""

    def __init__(self, api: docker.DockerClient, staged: ConditionImage, labels: dict[str, str]) -> None:
        self.stack = contextlib.ExitStack()
        self.lock = threading.Lock()
        self.state = "queued"  # → "starting" (the standby's) or "abandoned" (the grading's)
        self.pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="impasse-standby")
        self.started = self.pool.submit(self.start, api, staged, grader_labels(labels))

    def start(self, api: docker.DockerClient, staged: ConditionImage, labels: dict[str, str]) -> Containers | None:
        with BUSY.held(Rank.STANDBY):
            with self.lock:
                if self.state == "abandoned":
                    return None
                self.state = "starting"
            return start_containers(self.stack, api, staged, labels, grading=True)

    def abandon_if_queued(self) -> bool:
        """Whether the standby had not begun; if so, it never will."""
        with self.lock:
            if self.state == "queued":
                self.state = "abandoned"
            return self.state == "abandoned"

    def take(self) -> Containers | None:
        """The standby's containers (once started), or None if it had not begun."""
        if self.abandon_if_queued():
            return None
        return self.started.result()  # a start that failed fails the grading, as it would have there

    def __enter__(self) -> StandbyGrader:
        return self

    def __exit__(self, *exc) -> None:
        """Whatever was started is removed, used or not; a standby still queued starts nothing."""
        self.pool.shutdown(wait=not self.abandon_if_queued())
        self.stack.close()


@contextlib.contextmanager
def grading_environment(api: docker.DockerClient, staged: ConditionImage, worktree_tar: bytes,
                        labels: dict[str, str], standby: StandbyGrader | None) -> Iterator[LiveEnvironment]:
    containers = standby.take() if standby else None
    if containers is None:
        with open_environment(api, staged, grader_labels(labels), workspace_tar=worktree_tar) as env:
            yield env
        return
    with standby:
        yield set_up(containers, worktree_tar)


def grade(api: docker.DockerClient, staged: ConditionImage, worktree_tar: bytes, labels: dict[str, str],
          seed: int = 0, committed: bool | None = None, standby: StandbyGrader | None = None) -> Grade:
    """Run the tests on the agent's final work tree (its files, not its .git, whose ownership a
    blocker may have changed) in a fresh container of the same condition: the `standby`'s, if the
    run started one. Whether the fix was committed is read from the episode's own repository and
    passed in."""
    started = time.monotonic()
    condition = staged.condition
    task = condition.task
    # The whole grading is one CPU burst (set-up, test run, removal): one slot of the gate.
    with BUSY.held(Rank.GRADING), grading_environment(api, staged, worktree_tar, labels, standby) as env:
        run = run_tests(env.box, task.tests, make_injector(condition, env.box, seed))
    committed = committed if task.requires.commit else None
    f2p = {t: t in run.passed for t in task.fail_to_pass}
    p2p = {t: t in run.passed for t in task.pass_to_pass}
    resolved = all(f2p.values()) and all(p2p.values()) and committed is not False
    return Grade(resolved, f2p, p2p, committed, run.exit_code, run.output_tail,
                 time.monotonic() - started)


WORKTREE_EXCLUDES = ("./.git", "./.ballast")


def capture_worktree(box: Sandbox, owner: str) -> bytes:
    return box.read_tar("/workspace", excludes=WORKTREE_EXCLUDES, user=owner)
