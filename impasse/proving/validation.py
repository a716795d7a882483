"""`impasse tasks validate`: prove each task in Docker. With the bug every FAIL_TO_PASS test fails
and every PASS_TO_PASS test passes; with the gold fix all pass. Results are cached by the content
hash of the task and the image, so an unchanged task is not run again."""

from __future__ import annotations

import json
import re
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

import docker
import yaml

from impasse.catalog.cards import get_card
from impasse.catalog.conditions import make_condition
from impasse.catalog.tasks import Task
from impasse.infra.environment import open_environment
from impasse.infra.layers import stage
from impasse.infra.sandbox import Sandbox, file_tar
from impasse.paths import user_cache
from impasse.truth.grading import run_tests
from impasse.truth.worktree_scan import added_lines

CACHE = user_cache("validate")


@dataclass
class Validation:
    task_id: str
    valid: bool
    problems: list[str] = field(default_factory=list)
    bug_failed: int = 0
    bug_passed: int = 0
    fix_passed: int = 0
    tests: int = 0
    seconds: float = 0.0
    cached: bool = False


def apply_patch_as_agent(box: Sandbox, patch: bytes) -> str | None:
    """Apply the gold fix the way an agent would; returns git's complaint when it does not apply."""
    box.write_tar("/tmp", file_tar("impasse-fix.patch", patch))
    result = box.exec("git apply /tmp/impasse-fix.patch && rm /tmp/impasse-fix.patch")
    return None if result.exit_code == 0 else result.output.strip()[-500:]


NOT_FOUND = re.compile(r"^ERROR: not found: /workspace/(\S+)", re.M)


def judge(task: Task, bug_passed: set[str], fix_passed: set[str], output: str = "",
          pass_to_pass: bool = True) -> list[str]:
    missing = [f"test id {t!r} does not exist (pytest: not found)" for t in NOT_FOUND.findall(output)]
    if missing:  # pytest then runs nothing at all: every other verdict would be noise
        return missing
    problems = []
    for test in task.fail_to_pass:
        if test in bug_passed:
            problems.append(f"FAIL_TO_PASS {test} passes with the bug")
        if test not in fix_passed:
            problems.append(f"FAIL_TO_PASS {test} does not pass with the gold fix")
    for test in task.pass_to_pass if pass_to_pass else ():
        if test not in bug_passed:
            problems.append(f"PASS_TO_PASS {test} does not pass with the bug")
        if test not in fix_passed:
            problems.append(f"PASS_TO_PASS {test} does not pass with the gold fix")
    return problems


def validate_task(api: docker.DockerClient, task: Task, use_cache: bool = True,
                  fail_to_pass_only: bool = False) -> Validation:
    """`fail_to_pass_only`: FAIL_TO_PASS alone, with the bug and with the fix (a generated task's
    PASS_TO_PASS was proved with the bug by the whole suite when it was generated)."""
    condition = make_condition(task, get_card("none"))
    started = time.monotonic()
    staged = stage(api, condition)
    tests = task.fail_to_pass if fail_to_pass_only else task.tests
    key = cache_key(task, staged.image, "f2p" if fail_to_pass_only else "all")
    if use_cache and key.exists():
        return Validation(**{**json.loads(key.read_text()), "cached": True})
    with open_environment(api, staged, {"impasse.role": "validate"}) as env:
        bug = run_tests(env.box, tests)
        complaint = apply_patch_as_agent(env.box, task.fix_patch.read_bytes())
        # The fix's files are the agent's, as in a grading: the runner's audit hook judges their code
        fix = run_tests(env.box, tests, agent_files=fix_files(task)) if complaint is None else None
    problems = [f"fix.patch does not apply: {complaint}"] if complaint else []
    problems += [f"the gold fix is taken for tampering: {route}: {evidence}" for route, evidence in
                 (fix.tampering if fix else [])]
    problems += judge(task, bug.passed, fix.passed if fix else set(), bug.output_tail, not fail_to_pass_only)
    result = Validation(task.id, not problems, problems,
                        bug_failed=sum(t not in bug.passed for t in tests),
                        bug_passed=len(bug.passed & set(tests)),
                        fix_passed=len(fix.passed & set(tests)) if fix else 0,
                        tests=len(tests), seconds=round(time.monotonic() - started, 2))
    if result.valid:
        key.parent.mkdir(parents=True, exist_ok=True)
        key.write_text(json.dumps(asdict(result)))
    return result


def fix_files(task: Task) -> tuple[str, ...]:
    """The Python files the gold fix changes."""
    return tuple(sorted(p for p in added_lines(task.fix_patch.read_text()) if p.endswith(".py")))


def cache_key(task: Task, image: str, scope: str = "all") -> Path:
    return CACHE / f"{task.id}-{task.content_hash}-{image.rsplit(':', 1)[-1]}-{scope}.json"


def passing_with_bug(api: docker.DockerClient, task: Task) -> list[str]:
    """Every test of the suite that passes with the bug: the candidates for PASS_TO_PASS."""
    staged = stage(api, make_condition(task, get_card("none")))
    with open_environment(api, staged, {"impasse.role": "pin"}) as env:
        run = run_tests(env.box, ())
    return sorted(run.passed - set(task.fail_to_pass))


def pin_pass_to_pass(task: Task, tests: list[str]) -> None:
    """Rewrite PASS_TO_PASS in task.yaml, leaving every other line as its author wrote it."""
    path = task.root / "task.yaml"
    lines = path.read_text().splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("PASS_TO_PASS:"))
    end = start + 1
    while end < len(lines) and lines[end].startswith("  - "):
        end += 1
    items = [f"  - {yaml.safe_dump(t, width=10**6).strip().removesuffix('...').strip()}" for t in tests]
    block = ["PASS_TO_PASS:", *items] if tests else ["PASS_TO_PASS: []"]
    path.write_text("\n".join(lines[:start] + block + lines[end:]) + "\n")
