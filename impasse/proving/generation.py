"""`impasse tasks generate`: each candidate bug (catalog/mutations.py) proved against the project's
own suite in Docker. One container per project from its image: the suite runs once on the pristine
tree (the baseline), then once per candidate with the mutated file written in, and the tree is reset
from git after each. A candidate is kept only when 1–20 baseline-passing tests fail with it
(FAIL_TO_PASS) and every other baseline test still passes (PASS_TO_PASS); then its FAIL_TO_PASS are
run again on the reset tree and must all pass (the gold fix, and a guard against flaky tests).
Everything else is rejected with its reason counted: no test fails, too many fail, the suite no
longer collects, the time limit.
"""

from __future__ import annotations

import io
import re
import shlex
import tarfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import docker

from impasse.catalog.generated import GeneratedTask, Stats, load_project_tasks, load_stats, save_baseline, save_tasks
from impasse.catalog.mutations import Mutation, candidates
from impasse.catalog.projects import PYPI, RealProject
from impasse.catalog.statements import Failure, write_statement
from impasse.infra.images import Log
from impasse.infra.projects import Fetched
from impasse.infra.sandbox import Sandbox, SandboxSpec, file_tar, open_sandbox
from impasse.truth.grading import PASSED_LINE

REPORT_DIR = "/tmp/impasse-suite"
MIN_F2P, MAX_F2P = 1, 20
BASELINE_TIMEOUT = 900
FAILED_LINE = re.compile(r"^(?:FAILED|ERROR) (\S+(?:\[[^\]]*\])?)(?: - (.*))?$", re.M)
SECTION = re.compile(r"^_{3,} (.+?) _{3,}$")
COLLECTION_BROKEN = ("ERROR collecting", "errors during collection", "INTERNALERROR", "no tests ran")


@dataclass
class SuiteRun:
    passed: set[str]
    messages: dict[str, list[str]]  # failing test id -> its `E ` lines (and its summary message)
    exit_code: int
    seconds: float
    timed_out: bool
    broken: bool  # collection failed or pytest itself did


def suite_command(paths: tuple[str, ...]) -> str:
    targets = " ".join(shlex.quote(p) for p in paths)
    return (f"rm -rf {REPORT_DIR} && mkdir -p {REPORT_DIR} && cd /workspace && "
            "env -u PYTHONPATH -u PYTHONSTARTUP PYTHONNOUSERSITE=1 python3 -s -m pytest -p no:cacheprovider "
            f"-o addopts= -rA -q --no-header --color=no --tb=short {targets} > {REPORT_DIR}/out.txt 2>&1")


def parse_report(text: str) -> tuple[set[str], dict[str, list[str]]]:
    passed = set(PASSED_LINE.findall(text))
    sections: dict[str, list[str]] = {}
    current = None
    for line in text.splitlines():
        header = SECTION.match(line)
        if header:
            current = sections.setdefault(header.group(1), [])
        elif current is not None and line.startswith("E "):
            current.append(line[1:].strip())
    messages = {}
    for test, summary in FAILED_LINE.findall(text):
        key = ".".join(test.split("::")[1:])
        found = sections.get(key, [])
        messages[test] = found or ([summary] if summary else [])
    return passed, messages


def run_suite(box: Sandbox, paths: tuple[str, ...], timeout: int) -> SuiteRun:
    result = box.exec(suite_command(paths), timeout=timeout)
    data = box.read_tar(REPORT_DIR)[0]
    with tarfile.open(fileobj=io.BytesIO(data)) as tar:
        member = tar.extractfile("./out.txt")
        text = member.read().decode("utf-8", "replace") if member else ""
    passed, messages = parse_report(text)
    broken = result.exit_code not in (0, 1) or any(marker in text for marker in COLLECTION_BROKEN)
    return SuiteRun(passed, messages, result.exit_code, result.duration, result.timed_out, broken)


def judge(baseline: set[str], run: SuiteRun) -> tuple[list[str], str | None]:
    """FAIL_TO_PASS and None when kept; otherwise the reason it was rejected."""
    if run.timed_out:
        return [], "time limit"
    if run.broken:
        return [], "suite broken (collection or pytest error)"
    f2p = sorted(baseline - run.passed)
    if len(f2p) < MIN_F2P:
        return [], "no test fails"
    if len(f2p) > MAX_F2P:
        return [], f"more than {MAX_F2P} tests fail"
    return f2p, None


def reset(box: Sandbox) -> None:
    box.exec("cd /workspace && git checkout -q -- . && git clean -fdq", timeout=60)


def task_id_of(project: RealProject, mutation: Mutation) -> str:
    return f"{project.name}.{mutation.strategy}__{mutation.digest}"


# A statement rewriter: (template, what it must not name) -> (statement, whether the rewrite was used)
Rewrite = Callable[[str, tuple[str, ...]], tuple[str, bool]]


def make_task(project: RealProject, mutation: Mutation, f2p: list[str], run: SuiteRun, seed: int,
              baseline: tuple[str, ...], rewrite: Rewrite | None = None) -> GeneratedTask:
    failures = [Failure(t, tuple(run.messages.get(t, ()))) for t in f2p]
    hidden = (mutation.path, mutation.function, mutation.function.rsplit(".", 1)[-1] + "(")
    statement = write_statement(project.name, project.version, project.description, failures, hidden, seed)
    rewritten = False
    if rewrite:
        statement, rewritten = rewrite(statement, hidden)
    provenance = {"strategy": mutation.strategy, "path": mutation.path, "function": mutation.function,
                  "line": mutation.line, "seed": seed, "sdist_sha256": project.sha256,
                  "statement": "rewritten" if rewritten else "template"}
    return GeneratedTask(task_id_of(project, mutation), project.name,
                         project.version, mutation.patch, tuple(f2p), statement, provenance, baseline)


def generate(api: docker.DockerClient, fetched: Fetched, image: str, seed: int = 0, max_tasks: int = 30,
             max_candidates: int = 200, budget_seconds: float = 900, out: Path = PYPI,
             log: Log = lambda m: None, rewrite: Rewrite | None = None,
             resume: bool = False) -> tuple[list[GeneratedTask], Stats]:
    """`resume`: go on from the project's saved tasks and statistics (same seed, same candidate order),
    skipping every candidate already judged; `max_tasks` and `max_candidates` count the whole."""
    project = fetched.project
    previous = load_stats(project, out) if resume else None
    stats = previous if previous and previous.seed == seed else Stats(project.name, project.version, seed)
    started, earlier = time.monotonic(), stats.wall_seconds  # the budget is per run; the wall time adds up
    kept: list[GeneratedTask] = load_project_tasks(project, out) if stats is previous else []
    judged = set(stats.tried_ids) | {t.id for t in kept}
    spec = SandboxSpec(image, labels={"impasse.role": "generate", "impasse.task": project.key})
    with open_sandbox(api, spec) as box:
        base = run_suite(box, project.tests, BASELINE_TIMEOUT)
        if base.broken or not base.passed:
            raise RuntimeError(f"{project.key}: the pristine suite does not run (exit {base.exit_code})")
        baseline = tuple(sorted(base.passed))
        stats.baseline_tests, stats.baseline_seconds = len(baseline), round(base.seconds, 2)
        save_baseline(project, list(baseline), base.seconds, out)
        limit = int(max(30, 3 * base.seconds + 15))
        log(f"{project.key}: baseline {len(baseline)} tests pass in {base.seconds:.1f}s; limit {limit}s")
        for mutation in candidates(fetched.source, project.source, seed):
            task_id = task_id_of(project, mutation)
            if task_id in judged:
                continue
            if len(kept) >= max_tasks or stats.tried >= max_candidates \
                    or time.monotonic() - started > budget_seconds:
                break
            stats.tried += 1
            stats.tried_by_strategy[mutation.strategy] += 1
            stats.tried_ids.append(task_id)
            box.write_tar("/workspace", file_tar(mutation.path, mutation.mutated))
            run = run_suite(box, project.tests, limit)
            reset(box)
            stats.container_seconds += run.seconds
            f2p, reason = judge(base.passed, run)
            if reason is None:
                gold = run_suite(box, tuple(f2p), limit)
                stats.container_seconds += gold.seconds
                if not set(f2p) <= gold.passed:
                    reason = "FAIL_TO_PASS does not pass again on the pristine tree (flaky)"
            if reason:
                stats.rejected[reason] += 1
                continue
            kept.append(make_task(project, mutation, f2p, run, seed, baseline, rewrite))
            stats.kept += 1
            stats.kept_by_strategy[mutation.strategy] += 1
            save_tasks(project, kept, stats, out)  # as it goes: an interrupted run keeps what it proved
            log(f"{project.key}: kept {kept[-1].id} ({len(f2p)} F2P) [{stats.kept}/{stats.tried}]")
    stats.container_seconds = round(stats.container_seconds, 1)
    stats.wall_seconds = round(earlier + time.monotonic() - started, 1)
    save_tasks(project, kept, stats, out)
    return kept, stats
