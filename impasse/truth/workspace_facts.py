"""What the episode left in its container: test files changed or added, files the agent wrote
outside the workspace, the diff against the base commit, the untracked files, and whether the fix
was committed.

Git's questions are asked as the agent (agent_git.py: the repository's configuration can name
programs, which must not run as root), in one exec: each exec costs the engine, runc and the
container about 90 ms of CPU, and at dozens of episodes in flight that is what the machine runs out
of. The one question about the whole file system (`find`, which runs nothing the agent can name) is
asked as root. Every question is read-only, so their order does not matter; each answer is a
section between markers no file name or diff line can forge (a random boundary per call)."""

from __future__ import annotations

import shlex
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

from impasse.catalog.tasks import test_config_files
from impasse.infra.agent_git import GIT, blob_questions, sectioned
from impasse.infra.bounded_output import OUTPUT_HEAD, OUTPUT_TAIL, BoundedOutput
from impasse.infra.environment import LiveEnvironment
from impasse.infra.sandbox import Sandbox, mounted_below

FIND_LIMIT = 200
REPORT_BYTES = 64 * 1024**2  # the diff comes last: only its own middle can be cut


# What is mounted inside the work tree is not the work (an agent's own folder, cecli's .cecli, on a
# tmpfs of its own): left out of the untracked files by pathspec, each mount found in mountinfo.
MOUNTED = mounted_below("/workspace", ":(exclude)%s")
UNTRACKED = f"{GIT} ls-files --others --exclude-standard -- . {MOUNTED}"


def diff_command(base: str) -> str:
    return f"{GIT} diff --binary --no-ext-diff --no-textconv {base} -- . ':(exclude).ballast'"


def test_pathspecs(test_paths: tuple[str, ...]) -> list[str]:
    """What counts as the task's tests: its test folders and the files that configure them."""
    return [shlex.quote(p) for p in (*test_paths, *test_config_files(test_paths))]


def committed_command(base: str, test_paths: tuple[str, ...]) -> str:
    """Says yes when HEAD moved past the base and no tracked change outside the test folders is
    left uncommitted."""
    excluded = " ".join(shlex.quote(f":(exclude){p}") for p in test_paths)
    clean = f"{GIT} diff --quiet HEAD -- . {excluded}"
    return f"[ \"$({GIT} rev-parse HEAD)\" != {base} ] && {clean} && echo yes || echo no"


def untracked_of(output: str) -> list[str]:
    return [u for u in output.split() if not u.startswith(".ballast")]  # disk_full's filler is the card's


@dataclass
class WorkspaceFacts:
    tests_changed: list[str]
    written_outside: list[str]
    untracked: list[str]
    committed: bool | None  # None when the task does not ask for a commit
    diff: str  # as an agent's exec would show it: head and tail
    base_tree: str = ""  # `git ls-tree -r` of the base commit: what the work tree started as
    sourceless: list[str] = field(default_factory=list)  # bytecode outside __pycache__: a module with no source
    base_texts: dict[str, str] = field(default_factory=dict)  # blob id → the base content of a changed file


def questions(env: LiveEnvironment, base: str, commit: bool, blobs: list[str]) -> dict[str, str]:
    """`blobs`: the base content of the files the work tree changed, by blob id (the scan's)."""
    test_paths = env.condition.task.test_paths
    paths = " ".join(test_pathspecs(test_paths))
    asked = {
        "tests_changed": f"{GIT} diff --no-ext-diff --name-only {base} -- {paths}; {GIT} ls-files --others -- {paths}",
        "untracked": UNTRACKED,
    }
    if not env.base_tree:  # not read as the episode started (a lifted run's fresh environment)
        asked["base_tree"] = f"{GIT} ls-tree -r --full-tree {base}"
    if commit:
        asked["committed"] = committed_command(base, test_paths)
    asked |= blob_questions(blobs)
    asked["diff"] = diff_command(base)  # last: see REPORT_BYTES
    return asked


def written_outside_question(env: LiveEnvironment) -> str:
    prune = " -o ".join(f"-path {p}" for p in ("/proc", "/sys", "/dev", "/workspace"))
    return (f"find / \\( {prune} \\) -prune -o -user 1000 -newermt @{env.t0:.3f} -print "
            f"2>/dev/null | head -{FIND_LIMIT}")


# Bytecode where Python would import it as a module of its own (not a cache beside its source): the
# grader never receives bytecode, so such a module is code the agent meant to run unread.
SOURCELESS = ("find /workspace -xdev \\( -name '*.pyc' -o -name '*.pyo' \\) ! -path '*/__pycache__/*' -print "
              f"2>/dev/null | head -{FIND_LIMIT}")


def read_facts(env: LiveEnvironment, base: str, commit: bool, blobs: list[str] = ()) -> WorkspaceFacts:
    """Git's questions as the agent and `find`'s as root (fixed arguments, no -exec: nothing the agent
    chose runs), the two execs at once."""
    found = {"written_outside": written_outside_question(env), "sourceless": SOURCELESS}
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="impasse-facts") as pool:
        as_root = pool.submit(sectioned, env.box, found, timeout=180, as_root=True)
        answers = sectioned(env.box, questions(env, base, commit, list(blobs)), timeout=180, keep_bytes=REPORT_BYTES)
        answers |= as_root.result()
    return WorkspaceFacts(
        tests_changed=sorted(set(answers.get("tests_changed", "").split())),
        written_outside=[f for f in answers.get("written_outside", "").split("\n") if f],
        untracked=untracked_of(answers.get("untracked", "")),
        committed=answers.get("committed", "").strip() == "yes" if commit else None,
        diff=agent_sized(answers.get("diff", "")),
        base_tree=answers.get("base_tree", ""),
        sourceless=[f.removeprefix("/workspace/") for f in answers.get("sourceless", "").split("\n") if f],
        base_texts={name.removeprefix("blob:"): text for name, text in answers.items() if name.startswith("blob:")},
    )


def agent_sized(diff: str) -> str:
    """The diff as one exec of its own would have returned it: head and tail, the middle elided."""
    bounded = BoundedOutput(OUTPUT_HEAD, OUTPUT_TAIL)
    bounded.feed(diff.encode("utf-8", errors="replace"))
    return bounded.text()


def committed_fix(box: Sandbox, base: str, test_paths: tuple[str, ...]) -> bool:
    """Whether the fix was committed, asked alone (the proofs)."""
    return sectioned(box, {"committed": committed_command(base, test_paths)}).get("committed", "").strip() == "yes"


def git_facts(box: Sandbox, base: str) -> tuple[str, list[str]]:
    """The diff against the base commit and the untracked files, asked alone (the live gold, each
    reply): the same questions and answers as `read_facts`, in one exec."""
    answers = sectioned(box, {"untracked": UNTRACKED, "diff": diff_command(base)}, keep_bytes=REPORT_BYTES)
    return agent_sized(answers.get("diff", "")), untracked_of(answers.get("untracked", ""))
