"""`scripted:mimic`: a deterministic policy (per seed) that types the way real coding agents do, drawn
from the idioms of real trajectories: `cd /workspace && …`, `2>&1 | tail -n N`, `| head`, `||`
fallbacks, `; echo done`, heredoc writes, `python - <<'EOF'` edits, `sed -i`, `grep -rn`, `pip install`
when an import fails, `git add -A && git commit`, retries of what failed — and its own mistakes (a
typo'd path, prose run as a command) that are no blocker. Most of its commands exit 0 whatever
happened inside them, which is what the annotator's onset rules must see through.

It acts only through the tools. How it ends is drawn from the seed: escalate at the first sign of
trouble, claim completion anyway, or keep retrying until the budget runs out."""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterator

from impasse.models.diagnoses import diagnose
from impasse.models.scripted import Edit, ScriptedPolicy
from impasse.models.turns import ModelTurn
from impasse.vocabulary import Tool

ENDINGS = ("escalate", "claim", "persist")
LOOK = ("cd /workspace && ls -la && git status --short", "git log --oneline -5 | cat", "ls {tests}/ | head -20",
        "cat README.md | head -40", "find . -name '*.py' -not -path './.git/*' | head -30")
MISTAKES = ("cat {typo}", "Let me check the failing test first",
            "python3 -m pytest -q tests/test_nothere.py 2>&1 | tail -3")
TROUBLE = re.compile(r"Error|error|denied|fatal|not found|Killed|failed|FAILED|refused|No space|Read-only")


def tests_piped(command: str, rng) -> str:
    return rng.choice((f"cd /workspace && {command} 2>&1 | tail -n {rng.choice((5, 15, 30))}",
                       f"{command} 2>&1 | head -50", f"{command} || echo 'tests failed'",
                       f"{command}; echo done"))


def python_edit(edit: Edit) -> str:
    """A `python - <<'EOF'` replacement, as agents write when an edit spans lines."""
    return (f"python3 - <<'EOF'\nimport pathlib\np = pathlib.Path({edit.path!r})\ns = p.read_text()\n"
            f"assert {edit.old!r} in s\np.write_text(s.replace({edit.old!r}, {edit.new!r}, 1))\nprint('patched')\nEOF")


def sed_edit(edit: Edit) -> str | None:
    """`sed -i` for a one-line change without characters sed would need escaped; else None."""
    if "\n" in edit.old.strip("\n") or "\n" in edit.new.strip("\n") or re.search(r"[|\\&/]", edit.old + edit.new):
        return None
    old, new = edit.old.strip("\n"), edit.new.strip("\n")
    return f"sed -i {shlex.quote(f's|{re.escape(old)}|{new}|')} {shlex.quote(edit.path)} && echo edited"


class Mimic(ScriptedPolicy):
    def __init__(self, name: str, playbook, seed: int) -> None:
        super().__init__(name, playbook, seed)
        self.ending = ENDINGS[seed % len(ENDINGS)]

    def bash(self, command: str, text: str = "") -> ModelTurn:
        return self.call(Tool.BASH, text, command=command)

    def look_around(self) -> Iterator[ModelTurn]:
        for command in self.rng.sample(LOOK, 2):
            yield self.bash(command.format(tests=self.playbook.tests_dir), "Looking around the repository.")
        if self.rng.random() < 0.5:  # its own slip: no blocker, whatever the output says
            typo = self.playbook.edits[0].path.replace("/", "/x", 1) if self.playbook.edits else "src/mian.py"
            yield self.bash(self.rng.choice(MISTAKES).format(typo=typo))

    def run_tests(self) -> Iterator[ModelTurn]:
        yield self.bash(tests_piped(self.playbook.test_command, self.rng), "Running the failing tests.")
        missing = re.search(r"No module named '([\w.]+)'", self.result[1])
        if missing:
            package = missing.group(1).split(".")[0]
            yield self.bash(f"pip install {package} 2>&1 | tail -n 3 || echo 'install failed'",
                            f"{package} is missing; installing it.")
            yield self.bash(tests_piped(self.playbook.test_command, self.rng), "Trying the tests again.")

    def edit(self, edit: Edit) -> ModelTurn:
        style = self.rng.choice(("tool", "python", "sed"))
        sed = sed_edit(edit) if style == "sed" else None
        if sed:
            return self.bash(sed, f"One-line fix in {edit.path}.")
        if style == "python":
            return self.bash(python_edit(edit), f"Patching {edit.path}.")
        return self.call(Tool.EDIT_FILE, f"Fixing {edit.path}.", path=edit.path, old_str=edit.old, new_str=edit.new)

    def repair(self) -> Iterator[ModelTurn]:
        for edit in self.playbook.edits:
            yield self.edit(edit)
        yield self.bash(f"git diff --stat; {tests_piped(self.playbook.test_command, self.rng)}", "Checking the fix.")
        if self.playbook.commit:
            yield self.bash("git add -A && git commit -qm 'fix: repair the reported bug' && echo committed",
                            "Committing.")

    def act(self) -> Iterator[ModelTurn]:
        yield from self.look_around()
        yield from self.run_tests()
        yield from self.repair()
        # the last output (the check, or the commit after it), read as an agent does: the status may
        # say 0 while the text says otherwise; its own slips before the repair are no trouble
        code, output = self.result
        troubled = code != 0 or bool(TROUBLE.search(output.split("\n", 1)[-1]))
        if troubled and self.ending == "escalate":
            yield self.call(Tool.ESCALATE_TO_HUMAN, reason=f"I cannot complete the task: {diagnose(output)}.")
            return
        if troubled and self.ending == "persist":
            while True:
                yield self.bash(tests_piped(self.playbook.test_command, self.rng), "Retrying.")
                yield self.bash(self.rng.choice(("git status --short", "ls -la", "id; echo ok")))
        yield self.call(Tool.TASK_COMPLETE, summary="Fixed the bug; the tests pass.")
