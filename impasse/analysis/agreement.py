"""The annotator held to hand labels: a labels file (one JSON line per trajectory, by the labelling
conventions of ../shared/real-trajectories/LABELING.md: `file`, `blocker_category`, 0-based
`t_star`) against what `impasse annotate --card auto` finds. Reports t* agreement on positives,
category agreement, and false onsets on negatives with every card tried (which cards fired, and
where) — overall, per format and per labelled category. Where a label says how the session ended
(`ending`, `told_human`), the ending and whether the human was told are held to it too; where a
provenance file lies beside the labels, every figure also by fold (folds.py): tuning and held-out."""

from __future__ import annotations

import json
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from impasse.analysis import verdicts as ends
from impasse.analysis.compiled_card import compile_card
from impasse.analysis.driver import annotate_each, auto_cards, first_onset
from impasse.analysis.importers import ImportProblem, load_foreign
from impasse.analysis.incidents import incident_of
from impasse.analysis.metrics import Annotation
from impasse.catalog.cards import Card, load_cards
from impasse.folds import repos_beside, split_of

# A label's ending (LABELING.md's words for it) → the annotator's verdict.
ENDINGS = {"escalated": ends.ESCALATED, "claimed": ends.CLAIMED, "gave_up": ends.GAVE_UP,
           "out_of_budget": ends.OUT_OF_BUDGET, "out_of_context": ends.OUT_OF_CONTEXT, "aborted": ends.ABORTED,
           "no_step": ends.NO_STEP}


@dataclass
class Verdict:
    file: str
    expected_category: str
    expected_t_star: int | None  # impasse's numbering (from 1)
    found_category: str | None
    found_t_star: int | None
    evidence: str = ""
    problem: str = ""  # the file could not be annotated
    format: str = ""  # the importer that read it
    steps: int = 0
    fired: dict[str, int] = field(default_factory=dict)  # negatives: every card that found an onset → its t*
    split: str = ""  # tuning or held-out (by the file's repository), "" without provenance
    expected_ending: str | None = None  # a verdict of verdicts.py; None: the label says nothing of it
    found_ending: str | None = None
    ending_line: str = ""  # the line the annotator read the ending from
    expected_told: bool | None = None
    found_told: bool | None = None

    @property
    def positive(self) -> bool:
        return self.expected_category != "none"

    @property
    def t_star_agrees(self) -> bool:
        return self.found_t_star == self.expected_t_star

    @property
    def category_agrees(self) -> bool:
        return (self.found_category or "none") == self.expected_category

    @property
    def false_onset(self) -> bool:
        return not self.positive and (self.found_t_star is not None or bool(self.fired))

    @property
    def miss(self) -> str:
        """What is wrong, in words ("" when the verdict agrees)."""
        if self.problem:
            return f"unreadable: {self.problem}"
        if not self.positive:
            return f"false onset: {', '.join(f'{c}@{t}' for c, t in sorted(self.fired.items()))}" \
                if self.false_onset else ""
        if self.found_t_star is None:
            return "onset missed"
        if not self.t_star_agrees:
            return f"t* {self.found_t_star}, labelled {self.expected_t_star}"
        return "" if self.category_agrees else f"category {self.found_category}"

    @property
    def ending_agrees(self) -> bool | None:
        return None if self.expected_ending is None else self.found_ending == self.expected_ending

    @property
    def told_agrees(self) -> bool | None:
        """Whether the human was told, judged on sessions both sides say hit a wall (without a wall
        the annotator asks no such question)."""
        if self.expected_told is None or not self.positive or self.found_t_star is None:
            return None
        return self.found_told == self.expected_told

    @property
    def ending_miss(self) -> str:
        misses = [f"ended {self.found_ending!r}, labelled {self.expected_ending!r} (read: {self.ending_line!r})"
                  if self.ending_agrees is False else "",
                  f"told {self.found_told}, labelled {self.expected_told}" if self.told_agrees is False else ""]
        return "; ".join(m for m in misses if m)


def share(hits: int, total: int) -> float | None:
    return round(hits / total, 4) if total else None


def figures(verdicts: list[Verdict]) -> dict:
    positives = [v for v in verdicts if v.positive]
    negatives = [v for v in verdicts if not v.positive]
    endings = [v.ending_agrees for v in verdicts if v.ending_agrees is not None]
    told = [v.told_agrees for v in verdicts if v.told_agrees is not None]
    return {"files": len(verdicts), "positives": len(positives), "negatives": len(negatives),
            "t_star_agreement": share(sum(v.t_star_agrees for v in positives), len(positives)),
            "category_agreement": share(sum(v.category_agrees for v in positives), len(positives)),
            "false_onsets": share(sum(v.false_onset for v in negatives), len(negatives)),
            "ending_agreement": share(sum(endings), len(endings)), "told_agreement": share(sum(told), len(told)),
            "unreadable": sum(bool(v.problem) for v in verdicts)}


@dataclass
class Agreement:
    verdicts: list[Verdict] = field(default_factory=list)

    def summary(self) -> dict:
        return figures(self.verdicts)

    def by(self, key) -> dict[str, dict]:
        groups: dict[str, list[Verdict]] = defaultdict(list)
        for verdict in self.verdicts:
            groups[key(verdict)].append(verdict)
        return {name: figures(group) for name, group in sorted(groups.items())}

    def by_format(self) -> dict[str, dict]:
        return self.by(lambda v: v.format or "unreadable")

    def by_category(self) -> dict[str, dict]:
        return self.by(lambda v: v.expected_category)

    def by_split(self) -> dict[str, dict]:
        return self.by(lambda v: v.split or "unfolded")

    def misses(self) -> list[Verdict]:
        return [v for v in self.verdicts if v.miss]

    def to_dict(self) -> dict:
        return {"summary": self.summary(), "by_format": self.by_format(), "by_category": self.by_category(),
                "by_split": self.by_split(),
                "verdicts": [{**vars(v), "miss": v.miss, "ending_miss": v.ending_miss} for v in self.verdicts]}


def read_labels(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def cards_firing(cards: list[Card], each: list[tuple[Card, Annotation]]) -> dict[str, int]:
    """Every card (not only the first `--card auto` keeps) whose blocker the annotator finds, at its t*,
    in the order the cards are given; from the annotations `--card auto` chose among."""
    t_stars = {card.id: result.row.t_star for card, result in each}
    return {card.id: t_stars[card.id] for card in cards if t_stars[card.id] is not None}


def expected_ending(label: dict) -> str | None:
    ending = label.get("ending")
    if ending is None:
        return None
    if ending not in ENDINGS:
        raise ValueError(f"{label['file']}: ending {ending!r} is none of {', '.join(ENDINGS)}")
    return ENDINGS[ending]


def judge(label: dict, folder: Path, cards: list[Card] | None = None,
          by_id: dict[str, Card] | None = None) -> Verdict:
    """One labelled file against the annotator; `by_id`: the cards by id, when the caller keeps them."""
    expected = None if label["t_star"] is None else label["t_star"] + 1
    verdict = Verdict(label["file"], label["blocker_category"], expected, None, None,
                      expected_ending=expected_ending(label), expected_told=label.get("told_human"))
    cards = cards if cards is not None else auto_cards(load_cards())
    try:
        trajectory = load_foreign(folder / label["file"])
    except (ImportProblem, OSError) as err:
        verdict.problem = str(err)
        return verdict
    verdict.format, verdict.steps = trajectory.source, trajectory.length
    each = annotate_each(trajectory, cards)  # once: a negative's every firing card, and the one auto keeps
    if not verdict.positive:
        verdict.fired = cards_firing(cards, each)
    found = first_onset(trajectory, cards, each)[0]
    verdict.found_t_star = found.row.t_star
    verdict.found_category = found.evidence.get("category") if found.row.t_star is not None else "none"
    verdict.evidence = (found.evidence.get("t_star") or {}).get("line", "")
    by_id = by_id if by_id is not None else {card.id: card for card in cards}
    card = by_id.get(found.row.condition or "") if found.row.t_star is not None else None
    incident = incident_of(trajectory, found, compile_card(card, None) if card else None)
    verdict.found_ending, verdict.ending_line = incident.verdict.kind, incident.verdict.line
    verdict.found_told = incident.told is not None if found.row.t_star is not None else None
    return verdict


def agreement(labels_path: Path, sessions: Path | None = None) -> Agreement:
    """Every labelled file judged: the files beside the labels, or in `sessions`."""
    folder = sessions or labels_path.parent
    cards = auto_cards(load_cards())
    by_id = {card.id: card for card in cards}
    repos = repos_beside(labels_path)
    verdicts = []
    for label in read_labels(labels_path):
        verdict = judge(label, folder, cards, by_id)
        verdict.split = split_of(repos[label["file"]]) if label["file"] in repos else ""
        verdicts.append(verdict)
    return Agreement(verdicts)
