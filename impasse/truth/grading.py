"""Runtime truth about a workspace: the task's FAIL_TO_PASS and PASS_TO_PASS tests, run by the
harness in a fresh container of the same condition, with the pristine tests restored, user site
packages off and no inherited PYTHONPATH. A test counts as passed only when pytest says PASSED for
exactly its id: skipped, not collected, errored or killed all count as failed."""

from __future__ import annotations

import re
import shlex
import time
from dataclasses import asdict, dataclass, replace

import docker

from impasse.infra.busy_gate import BUSY
from impasse.infra.environment import open_environment
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


def grade(api: docker.DockerClient, staged: ConditionImage, worktree_tar: bytes, labels: dict[str, str],
          seed: int = 0, committed: bool | None = None) -> Grade:
    """Run the tests on the agent's final work tree (its files, not its .git, whose ownership a
    blocker may have changed) in a fresh container of the same condition. Whether the fix was
    committed is read from the episode's own repository and passed in."""
    started = time.monotonic()
    condition = staged.condition
    task = condition.task
    # The whole grading is one CPU burst (container up, test run, removal): one slot of the gate.
    with BUSY.held(), open_environment(api, staged, {**labels, "impasse.role": "grader"},
                                       workspace_tar=worktree_tar, grading=True) as env:
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
