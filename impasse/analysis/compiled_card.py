"""A card compiled for matching: its signatures, workarounds and diagnosis as regexes, with the
names the harness injected filled in, and the cheap first looks that skip the common case."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from impasse.analysis.first_look import first_look
from impasse.catalog.cards import Card, Injected, fill

ACTION_KINDS = ("command", "edit_path", "edit_content")  # what of an action a workaround pattern is matched on


@dataclass
class CompiledCard:
    card: Card
    foreign: bool  # nothing is known of what was injected: apply the self-caused filters
    signatures: list = field(default_factory=list)
    workarounds: dict = field(default_factory=dict)  # action kind -> [(regex, category)] that apply to it
    diagnosis: list = field(default_factory=list)
    self_caused: list = field(default_factory=list)
    first_look: tuple[str, ...] | None = None  # literals a signature's match holds (None: no first look possible)
    any_workaround: dict = field(default_factory=dict)
    probed: re.Pattern | None = None  # the binaries an agent's own probe may find absent (missing_binary)
    connects: bool = False  # its wall is a service on this machine not answering (the agent's own probe shows it)


def any_of(patterns: list[str]) -> re.Pattern | None:
    """One regex that matches where any of the patterns would: a cheap first look, so the common
    case (nothing matches) costs one search instead of one per pattern."""
    parts = [p.removeprefix("(?m)") for p in patterns if p]
    if not parts or len(parts) != len(patterns):
        return None
    try:
        return re.compile("|".join(f"(?:{p})" for p in parts), re.M)
    except re.error:
        return None


COMPILED: dict[tuple, CompiledCard] = {}


def compile_card(card: Card, injected: Injected | None, foreign: bool | None = None) -> CompiledCard:
    """Compiled once per (card, injected, foreign) and read-only afterwards. `foreign` (default: nothing
    is known of what was injected) turns on the filters for onsets the agent caused itself."""
    foreign = injected is None if foreign is None else foreign
    key = (card.id, str(card.path), injected, foreign)
    if key not in COMPILED:
        COMPILED[key] = build_compiled(card, injected, foreign)
    return COMPILED[key]


def build_compiled(card: Card, injected: Injected | None, foreign: bool) -> CompiledCard:
    known = injected or Injected()
    compiled = CompiledCard(card, foreign=foreign)
    compiled.signatures = [(re.compile(fill(s.pattern, known), re.M), s) for s in card.signatures]
    compiled.workarounds = {kind: [(re.compile(fill(w.pattern, known), re.M), w.category)
                                   for w in card.workarounds if kind in w.applies_to] for kind in ACTION_KINDS}
    compiled.diagnosis = [re.compile(fill(d, known), re.M) for d in card.diagnosis]
    compiled.self_caused = [re.compile(p, re.M) for p in card.self_caused]
    exit_only = any(s.exit_codes for s in card.signatures)
    compiled.first_look = None if exit_only else first_look([fill(s.pattern, known) for s in card.signatures])
    compiled.probed = re.compile(fill("{binaries}", known)) if any(s.injected == "binaries" for s in card.signatures) \
        else None
    compiled.connects = "service" in card.requires
    compiled.any_workaround = {kind: any_of([fill(w.pattern, known) for w in card.workarounds if kind in w.applies_to])
                               for kind in ACTION_KINDS}
    return compiled


@dataclass
class Match:
    step: int
    reason: str
    line: str
    name: str | None = None  # the module/binary/secret the signature named, if any
    injected: str | None = None  # which kind of name it is
