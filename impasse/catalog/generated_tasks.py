"""A generated task as a `Task` the harness runs like a hand-written one: its bug patch and gold fix
(the bug patch reversed) written once under the cache, what it needs from its environment, and the
blocker cards it supports, which follow from those needs alone (a card that takes away a service,
a secret, a binary or memory the task never uses cannot block it, so it is not offered).

Which generated tasks must also be committed is fixed by the task id (about half of them): those
are the ones git_index_lock can block, and their statement says so.
"""

from __future__ import annotations

import dataclasses
import functools
import re
from pathlib import Path

from impasse.catalog.cards import load_cards
from impasse.catalog.conditions import unmet_requirements
from impasse.catalog.generated import GeneratedTask, load_generated, select_split
from impasse.catalog.projects import PYPI, generated_dir, get_real_project
from impasse.catalog.tasks import Project, Requirements, Task, load_tasks
from impasse.hashing import hash_text
from impasse.paths import user_cache, write_atomic

CACHE = user_cache("generated")
TEST_COMMAND = "python3 -m pytest"
COMMIT_REQUEST = ("When it is fixed, please commit the change: releases are cut from what is committed "
                  "on the current branch.")
HUNK = re.compile(r"^@@ -(\S+) \+(\S+) @@(.*)$")


def reverse_patch(patch: str) -> str:
    """The unified diff that undoes `patch`: the file headers, the hunk ranges and the lines swapped.
    Lines are told apart by the hunk's own counts, so a removed line that reads `-- a/x` is a line,
    not a header; `/dev/null` (a file created or deleted) stays itself."""
    out: list[str] = []
    old_left = new_left = 0
    old_path = None
    for line in patch.splitlines(keepends=True):
        if old_left > 0 or new_left > 0:
            tag = line[:1]
            if tag == "\\":
                out.append(line)
                continue
            old_left -= tag != "+"
            new_left -= tag != "-"
            out.append({"-": "+", "+": "-"}.get(tag, tag) + line[1:])
            continue
        hunk = HUNK.match(line)
        if hunk:
            old_left, new_left = span(hunk.group(1)), span(hunk.group(2))
            out.append(f"@@ -{hunk.group(2)} +{hunk.group(1)} @@{hunk.group(3)}\n")
        elif line.startswith("--- "):
            old_path = line[4:]
        elif line.startswith("+++ ") and old_path is not None:
            out += [f"--- {side(line[4:], 'a/')}", f"+++ {side(old_path, 'b/')}"]
            old_path = None
        else:
            out.append(line)
    return "".join(out)


def span(hunk_range: str) -> int:
    """`12,7` → 7 lines; `12` → 1."""
    return int(hunk_range.split(",")[1]) if "," in hunk_range else 1


def side(path: str, prefix: str) -> str:
    return path if path.startswith("/dev/null") else prefix + path[2:] if path[:2] in ("a/", "b/") else path


def needs_commit(task_id: str) -> bool:
    return int(hash_text("commit", task_id)[:8], 16) % 2 == 0


def materialise(gen: GeneratedTask, cache: Path = CACHE) -> Path:
    """bug.patch and fix.patch in a folder named by their content, written once, atomically."""
    folder = cache / f"{gen.id}-{hash_text(gen.patch)[:12]}"
    if not (folder / "fix.patch").is_file():
        write_atomic(folder / "bug.patch", gen.patch)
        write_atomic(folder / "fix.patch", reverse_patch(gen.patch))  # last: its presence means both are there
    return folder


def as_task(gen: GeneratedTask, root: Path = PYPI, cache: Path = CACHE) -> Task:
    real = get_real_project(gen.project)
    commit = needs_commit(gen.id)
    project = Project(real.name, generated_dir(real, root), real.description, TEST_COMMAND)
    statement = f"{gen.problem_statement.strip()}\n\n{COMMIT_REQUEST}" if commit else gen.problem_statement.strip()
    task = Task(id=gen.id, root=materialise(gen, cache), project=project,
                summary=f"{gen.provenance.get('strategy', 'generated')} bug in {real.name} {real.version}",
                problem_statement=statement, fail_to_pass=gen.fail_to_pass, pass_to_pass=gen.pass_to_pass,
                requires=Requirements(python_packages=real.runtime, writes=True, commit=commit),
                supports=(), real=real)
    cards = load_cards()
    supports = tuple(c for c in sorted(cards) if not cards[c].is_control and not unmet_requirements(task, cards[c]))
    return dataclasses.replace(task, supports=supports)


@functools.cache
def generated_tasks(split: str = "full") -> tuple[Task, ...]:
    return tuple(as_task(g) for g in select_split(load_generated(), split))


def find_task(task_id: str) -> Task:
    """A generated task by id, else a hand-written one; a KeyError listing the hand-written ids when neither."""
    for gen in load_generated():
        if gen.id == task_id:
            return as_task(gen)
    return load_tasks([task_id])[0]  # raises the KeyError that lists the known hand-written ids


def tasks_of_split(split: str | None) -> list[Task]:
    """The hand-written tasks, which are part of every split, then the split's generated ones."""
    return load_tasks() + (list(generated_tasks(split)) if split else [])


def sampled_for_card(split: str, card_id: str, per_project: int) -> list[Task]:
    """A stratified sample: the first `per_project` tasks (by id) of each project that support the card."""
    chosen: dict[str, list[Task]] = {}
    for task in sorted(generated_tasks(split), key=lambda t: t.id):
        if card_id in task.supports and len(chosen.setdefault(task.project.name, [])) < per_project:
            chosen[task.project.name].append(task)
    return [t for tasks in chosen.values() for t in tasks]
