"""The first look (impasse/analysis/first_look.py) may let through text no signature matches, but it
must never hide one that a signature does match."""

from __future__ import annotations

import re

import pytest

from impasse.analysis.first_look import first_look, may_match, required_literals
from impasse.catalog.cards import Injected, fill, load_cards
from impasse.proving.atlas import load_atlas

from .test_signatures import HEALTHY, PHRASINGS, POSITIVE


@pytest.mark.parametrize("pattern,literals", [
    (r"curl: \(6\) Could not resolve host: \S+", ["curl: (6) Could not resolve host: "]),
    (r"(?m)^(?:[\w./-]+: )?(?:line \d+: )?[^:\n]+: Read-only file system$", [": Read-only file system"]),
    (r"spawn EAGAIN|Text file busy \(os error 26\)", ["spawn EAGAIN", "Text file busy (os error 26)"]),
    (r"\b(?P<name>[\w.+-]+) (?:is not set|must be set)\b", ["is not set", "must be set"]),
    (r"(?i)permission denied", None),  # case-insensitive: no literal is required as written
    (r"(?:/workspace/|)x", None),  # an alternative with nothing in it
])
def test_required_literals(pattern, literals):
    assert required_literals(pattern) == literals


def texts() -> list[str]:
    samples = [line for lines in POSITIVE.values() for line in lines] + HEALTHY
    samples += [s["text"] for card in PHRASINGS["samples"].values() for s in card]
    samples += [n["text"] for n in PHRASINGS["negatives"]]
    for data in load_atlas().values():
        samples += [sample[side]["output"] for sample in data["samples"] for side in ("blocked", "none")]
    return samples


@pytest.mark.parametrize("card_id", sorted(c for c, card in load_cards().items() if not card.is_control))
def test_the_first_look_never_hides_a_match(card_id):
    patterns = [fill(s.pattern, Injected()) for s in load_cards()[card_id].signatures if s.pattern]
    literals = first_look(patterns)
    if literals is None:
        pytest.skip(f"{card_id}: no first look (an exit-status signature)")
    for text in texts():
        if any(re.search(p, text, re.M) for p in patterns):
            assert may_match(literals, text), text[:200]


@pytest.mark.parametrize("card_id", sorted(c for c, card in load_cards().items() if not card.is_control))
def test_every_card_keeps_its_first_look(card_id):
    """One signature with no literal it must contain (a case-insensitive one, an alternative of classes only)
    takes the first look away from its whole card: every observation then runs every one of its regexes."""
    patterns = [fill(s.pattern, Injected()) for s in load_cards()[card_id].signatures if s.pattern]
    lost = [p for p in patterns if not required_literals(p)]
    assert not lost, lost
