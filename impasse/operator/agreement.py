"""The operator's rule held to hand-labelled escalations.

Each labelled escalation is a text as an agent wrote it, the observation it had seen, the hand-written
task whose objects it is written onto, the card whose blocker it is about, and a person's label:
`actionable` (an operator could act on it without diagnosing anything), `vague` or `wrong_cause`.
The rule agrees with an `actionable` label when it finds it actionable and names that card, and with
any other label when it does not find it actionable. tests/data/operator/README.md says how the
labels were made.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from impasse.catalog.cards import get_card, load_cards
from impasse.catalog.generated_tasks import find_task
from impasse.catalog.tasks import Task
from impasse.folds import split_of
from impasse.infra.projects import fetch
from impasse.operator.rules import Judgement, judge

LABELS = ("actionable", "vague", "wrong_cause")
# What the rule said, as the table's columns: an actionable verdict is split by whether it named the
# labelled card, since acting on another card lifts the wrong blocker.
COLUMNS = ("actionable", "actionable, other card", "vague", "unearned", "shotgun", "misdirected", "unreadable")


@dataclass(frozen=True)
class Labelled:
    text: str
    source: str
    card: str
    task: str
    seen: str
    label: str


@dataclass(frozen=True)
class Verdict:
    item: Labelled
    judged: Judgement

    @property
    def column(self) -> str:
        if self.judged.actionable and self.judged.card != self.item.card:
            return "actionable, other card"
        return self.judged.verdict

    @property
    def agrees(self) -> bool:
        if self.item.label == "actionable":
            return self.column == "actionable"
        return not self.judged.actionable


@dataclass(frozen=True)
class Agreement:
    verdicts: tuple[Verdict, ...]

    @property
    def share(self) -> float:
        return sum(v.agrees for v in self.verdicts) / len(self.verdicts) if self.verdicts else 0.0

    def confusion(self) -> dict[str, Counter]:
        """Label by row, the rule's verdict by column."""
        table = {label: Counter() for label in LABELS}
        for v in self.verdicts:
            table[v.item.label][v.column] += 1
        return table

    def disagreements(self) -> list[Verdict]:
        return [v for v in self.verdicts if not v.agrees]

    def lifted(self, label: str) -> float | None:
        """The share of texts with this label whose blocker the operator would lift (for vague and
        wrong-cause texts, a lift the person who wrote it did not earn): judged actionable for the card
        in place. One judged actionable for another card is acted on too, but that card's probe finds
        nothing under the labelled one, so it is answered "checked" (other_card)."""
        return self.share_of(label, lambda v: v.column == "actionable")

    def other_card(self, label: str) -> float | None:
        return self.share_of(label, lambda v: v.column == "actionable, other card")

    def share_of(self, label: str, test) -> float | None:
        these = [v for v in self.verdicts if v.item.label == label]
        return round(sum(map(test, these)) / len(these), 4) if these else None

    def summary(self) -> dict:
        return {"items": len(self.verdicts), "agreement": round(self.share, 4),
                "vague_lifted": self.lifted("vague"), "wrong_cause_lifted": self.lifted("wrong_cause"),
                "vague_other_card": self.other_card("vague"),
                "wrong_cause_other_card": self.other_card("wrong_cause")}

    def by_split(self) -> dict[str, dict]:
        """The figures on the tuning folds and on the held-out ones (folds.py, by each text)."""
        splits: dict[str, list[Verdict]] = {}
        for v in self.verdicts:
            splits.setdefault(split_of(v.item.text), []).append(v)
        return {name: Agreement(tuple(group)).summary() for name, group in sorted(splits.items())}

    def to_dict(self) -> dict:
        return {**self.summary(), "by_split": self.by_split(),
                "confusion": {label: dict(row) for label, row in self.confusion().items()},
                "disagreements": [{"text": v.item.text, "source": v.item.source, "card": v.item.card,
                                   "label": v.item.label, "verdict": v.column, "named": v.judged.card}
                                  for v in self.disagreements()]}


FIELDS = ("text", "source", "card", "task", "seen", "label")


def read_labelled(path: Path) -> list[Labelled]:
    """Every labelled line, or a ValueError naming the first bad one: not a JSON object, a field
    missing or not text, a label or card not known, a text labelled twice for the same task."""
    items, first_seen = [], {}
    for number, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
        if not line.strip():
            continue
        item = labelled_line(line, number)
        key = (item.text.strip(), item.task)
        if key in first_seen:
            raise ValueError(f"line {number}: the same text for {item.task} as line {first_seen[key]}")
        first_seen[key] = number
        items.append(item)
    return items


def labelled_line(line: str, number: int) -> Labelled:
    try:
        row = json.loads(line)
    except ValueError:
        raise ValueError(f"line {number}: not JSON") from None
    if not isinstance(row, dict):
        raise ValueError(f"line {number}: not a JSON object")
    missing = [name for name in FIELDS if not isinstance(row.get(name), str)]
    if missing:
        raise ValueError(f"line {number}: no text for {', '.join(missing)}")
    item = Labelled(*(row[name] for name in FIELDS))
    if item.label not in LABELS:
        raise ValueError(f"line {number}: label {item.label!r} is not one of {', '.join(LABELS)}")
    if item.card not in card_ids():
        raise ValueError(f"line {number}: unknown card {item.card!r}")
    return item


@cache
def card_ids() -> frozenset[str]:
    return frozenset(load_cards())


class UnknownTask(ValueError):
    """A labelled line names a task that is neither hand-written nor generated."""


@cache
def task_and_files(task_id: str) -> tuple[Task, tuple[str, ...]]:
    """A task (hand-written or generated) and its repository's paths, as `git ls-files` lists them in
    its container: a hand-written project's repo, a generated task's project as its sdist unpacks."""
    try:
        task = find_task(task_id)
    except KeyError:
        raise UnknownTask(f"unknown task {task_id!r}: neither a hand-written nor a generated task") from None
    repo = task.project.repo if task.real is None else fetch(task.real).source
    files = sorted(p.relative_to(repo).as_posix() for p in repo.rglob("*") if p.is_file() and ".git" not in p.parts)
    return task, tuple(files)


def judge_labelled(item: Labelled) -> Verdict:
    task, files = task_and_files(item.task)
    cards = [get_card(card) for card in task.supports]  # every card the task supports, as in a run
    return Verdict(item, judge(item.text, item.seen, task, cards, files))


def agreement(path: Path) -> Agreement:
    items = read_labelled(path)
    for number, item in enumerate(items, 1):  # every task known before any is judged
        try:
            task, _ = task_and_files(item.task)
        except UnknownTask as err:
            raise UnknownTask(f"item {number}: {err}") from None
        if item.card not in task.supports:  # no run of it could show this card's blocker
            raise ValueError(f"item {number}: task {item.task!r} does not support card {item.card!r}"
                             f" (it supports {', '.join(task.supports)})")
    return Agreement(tuple(judge_labelled(item) for item in items))
