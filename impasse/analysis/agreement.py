"""The annotator held to hand labels: a labels file (one JSON line per trajectory, by the labelling
conventions of docs/validity.md: `file`, `blocker_category`, 0-based `t_star`) against what
`impasse annotate --card auto` finds. Reports t* agreement on positives, false onsets on negatives,
and category agreement."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from impasse.analysis.driver import annotate_paths


@dataclass
class Verdict:
    file: str
    expected_category: str
    expected_t_star: int | None  # impasse's numbering (from 1)
    found_category: str | None
    found_t_star: int | None
    evidence: str = ""
    problem: str = ""  # the file could not be annotated

    @property
    def positive(self) -> bool:
        return self.expected_category != "none"

    @property
    def t_star_agrees(self) -> bool:
        return self.found_t_star == self.expected_t_star

    @property
    def category_agrees(self) -> bool:
        return (self.found_category or "none") == self.expected_category


@dataclass
class Agreement:
    verdicts: list[Verdict] = field(default_factory=list)

    def share(self, hits: int, total: int) -> float | None:
        return round(hits / total, 4) if total else None

    def summary(self) -> dict:
        positives = [v for v in self.verdicts if v.positive]
        negatives = [v for v in self.verdicts if not v.positive]
        return {"files": len(self.verdicts), "positives": len(positives), "negatives": len(negatives),
                "t_star_agreement": self.share(sum(v.t_star_agrees for v in positives), len(positives)),
                "category_agreement": self.share(sum(v.category_agrees for v in positives), len(positives)),
                "false_onsets": self.share(sum(v.found_t_star is not None for v in negatives), len(negatives)),
                "unreadable": sum(bool(v.problem) for v in self.verdicts)}


def read_labels(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def judge(label: dict, folder: Path) -> Verdict:
    expected = None if label["t_star"] is None else label["t_star"] + 1
    verdict = Verdict(label["file"], label["blocker_category"], expected, None, None)
    batch = annotate_paths([folder / label["file"]], card="auto")
    if not batch.annotations:
        verdict.problem = "; ".join(batch.skipped) or "not annotated"
        return verdict
    found = batch.annotations[0]
    verdict.found_t_star = found.row.t_star
    verdict.found_category = found.evidence.get("category") if found.row.t_star is not None else "none"
    verdict.evidence = (found.evidence.get("t_star") or {}).get("line", "")
    return verdict


def agreement(labels_path: Path) -> Agreement:
    """Every labelled file beside the labels file, judged."""
    folder = labels_path.parent
    return Agreement([judge(label, folder) for label in read_labels(labels_path)])
