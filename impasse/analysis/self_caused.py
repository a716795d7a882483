"""What in a foreign session the agent brought on itself, or never met, though a blocker's line shows
it: a refusal on a file it wrote, a tree walker's note on an entry it never asked for, an import of
the workspace's own modules (LABELING.md: the agent's own doing is no wall)."""

from __future__ import annotations

import re

from impasse.analysis.normal_form import COMMAND, NStep, NTrajectory

# A tree walker's note on one entry it could not read, after which the walk goes on (`find:
# '/home/u/.cache/dconf': Permission denied`, `du: cannot read directory '…': Permission denied`,
# `grep: /etc/ssl/private: Permission denied`, macOS's privacy guard on a home's folders: `find:
# …/Library/Application Support/FaceTime: Operation not permitted`): the agent asked for no such entry.
WALKED_PAST = re.compile(r"^(?:find|du|grep|rg|tree|locate): .*(?:Permission denied|Operation not permitted)\W*$")


# What the shell's own start-up printed before the command ran: its profile or rc file, or a script they
# source (`/opt/homebrew/…/shellenv.sh: line 18: /bin/ps: Operation not permitted` under a macOS
# sandbox, `/Users/u/.zshrc:12: command not found: nvm`). It comes with every command, whatever the
# command, and the command goes on: the user's set-up, not the task's wall.
STARTUP = re.compile(r"^(?:[\w./~-]*/)?(?:\.(?:bash|zsh|ksh|mksh)?rc|\.(?:bash_|z)?profile|\.bash_login|\.zshenv"
                     r"|\.zlogin|profile|bash\.bashrc|zshrc|zprofile|shellenv\.sh)(?::\d+:|: line \d+:) ")


def walked_past(line: str) -> bool:
    return WALKED_PAST.match(line) is not None


# A shell's refusal to run one word as a program: zsh names it last (`(eval):1: permission denied: x/package.json`),
# bash before its message (`bash: line 1: x/package.json: Permission denied`).
SHELL_RAN = re.compile(r"^(?:[\w./~-]*zsh|\(eval\))(?::\d+)?: (?:permission denied|operation not permitted): "
                       r"(?P<last>\S+)$|^[\w./-]*sh: (?:line \d+: )?(?P<first>[^:\s]+): "
                       r"(?:Permission denied|Operation not permitted)$")


# Where backticks do not run: a quoted here-document's body (`<<'EOF' … EOF`) and single quotes.
UNEVALUATED = re.compile(r"<<-?\s*(['\"])(\w+)\1[^\n]*\n.*?^\s*\2\s*$|'[^'\n]*'", re.S | re.M)


def ran_from_backticks(line: str, step: NStep) -> bool:
    """The shell refused to run a word the agent's own text put in backticks (a path backticked inside a
    double-quoted review body runs as a program): its quoting, not a wall."""
    found = SHELL_RAN.match(line.strip())
    if not found:
        return False
    word = re.escape(found.group("last") or found.group("first"))
    evaluated = " ".join(UNEVALUATED.sub(" ", a.command) for a in step.actions if a.command)
    return re.search(rf"`[^`]*(?<![\w./-]){word}(?![\w./-])[^`]*`", evaluated) is not None


def said_at_start_up(line: str) -> bool:
    return STARTUP.match(line) is not None


# A test runner's summary of a run where everything passed (pytest, jest and vitest, mocha, go, cargo):
# what the tests printed on the way was their own expected errors (an app's check that a variable is
# set, a mocked refused connection), not a wall.
PASSED = re.compile(r"^=+ (?:\d+ (?:passed|skipped|xfailed|xpassed|deselected|warnings?)(?:, )?)+ in [\d.]+m?s"
                    r"(?: \([\d:]+\))? =+$|^Tests:\s+(?:\d+ (?:skipped|todo), )*\d+ passed, \d+ total$"
                    r"|^\s*Tests\s+\d+ passed(?: \| \d+ skipped)? \(\d+\)$|^\s*\d+ passing\b|^test result: ok\.", re.M)
FAILED = re.compile(r"\b[1-9]\d* (?:failed|failing|errors?)\b|^FAIL\b|^--- FAIL|^test result: FAILED"
                    r"|\bTests:.*\bfailed\b", re.M)


def passing_test_run(output: str, exit_code: int | None) -> bool:
    """A test run that exited 0 (or left no status) and whose runner says every test passed."""
    return exit_code in (0, None) and PASSED.search(output) is not None and FAILED.search(output) is None


# What was refused (`bash: ./solve.sh: Permission denied`), to ask whether the agent made it itself.
DENIED_PATH = re.compile(r"(?P<path>[^\s:'\"`]+): Permission denied")


def agent_wrote_it(steps: list[NStep], index: int, line: str) -> bool:
    """A foreign run's permission refusal on a file the agent itself wrote earlier (its own script,
    saved without the execute bit): its own doing, as its own module is (LABELING.md). A file it read
    before it wrote to it was there before it, and so was its mode (a patch that updates the
    checkout's `run_tests.sh` made nothing)."""
    found = DENIED_PATH.search(line)
    name = found.group("path").rsplit("/", 1)[-1] if found else ""
    if len(name) < 2 or "." not in name:
        return False
    wrote = re.compile(rf"(?:>>?|\btee(?:\s+-a)?)\s*['\"]?[^\s'\"]*\b{re.escape(name)}\b")
    for step in steps:
        if step.index >= index:
            return False
        for action in step.actions:
            if action.kind == "read" and (action.path.endswith(name) or name in action.command):
                return False
            if (action.kind == "write" and (action.path.endswith(name) or name in action.command)) \
                    or wrote.search(action.command):
                return True
    return False


# A module of the workspace or one the agent wrote: its name before `.py` or `/__init__.py`.
LOCAL_MODULE = re.compile(r"(?:^|[\s/'\"(])([A-Za-z_]\w*)(?:\.py\b|/__init__\.py)")
# A folder of the workspace the agent's own commands name: a relative path's first folder (`opk/cli.py`,
# `rg TODO opk/`), or what it lists or enters (`ls -la opk`, `cd opk`).
LOCAL_FOLDER = re.compile(r"(?:^|[\s'\"=(])(?!-)([A-Za-z_]\w*)/"
                          r"|\b(?:ls|cd|tree)\s+(?:-\w+\s+)*([A-Za-z_]\w*)(?![\w./-])")


def local_names(trajectory: NTrajectory) -> set[str]:
    """Modules that live in the workspace or that the agent created: a failure to import one of
    them is the agent's own doing, not a removed dependency."""
    names = set()
    for step in trajectory.steps:
        for action in step.actions:
            if action.kind == COMMAND:  # a shell's words, not a note another tool was handed ("missing PIL/…")
                names.update(name for found in LOCAL_FOLDER.findall(action.command or "") for name in found if name)
            if action.path:
                names.add(re.sub(r"\.py$", "", action.path.rstrip("/").split("/")[-1]))
                names.update(part for part in action.path.split("/")[:-1] if part.isidentifier())
        for obs in step.observations:
            names.update(LOCAL_MODULE.findall(obs.output))
    return names
