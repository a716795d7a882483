"""A cheap first look before a card's signatures are tried: the literals a match must contain.

Most observations match none of a card's signatures. One regex that unites them all has to try
every alternative at every position (a `^` or `\\b` in front of one takes away the engine's
first-character skip), so its cost grows with each new phrasing. A substring test (`in`) is a
memchr-speed scan: a signature's required literals, found from its parsed pattern, say where a
match cannot be, and only an observation that holds one of them is handed to the regexes."""

from __future__ import annotations

import re
from re import _constants as sre  # the parser's op codes: what re.compile itself reads
from re import _parser

MIN_LITERAL = 3  # shorter literals would let nearly every output through


def required_literals(pattern: str) -> list[str] | None:
    """Literals of which every match of the pattern contains at least one; None when no such set
    could be found (a case-insensitive or verbose pattern, an alternative with no literal)."""
    parsed = _parser.parse(pattern, re.M)
    if parsed.state.flags & (re.I | re.X):
        return None
    return sequence_literals(list(parsed))


def sequence_literals(items: list) -> list[str] | None:
    """The longest run of plain characters a sequence must match, or the literals of a group it must
    match (one literal of each alternative), whichever is the stronger test."""
    best, run, options = "", "", None
    for op, arg in items:
        if op is sre.LITERAL:
            run += chr(arg)
            continue
        best, run = max(best, run, key=len), ""
        inner = group_literals(op, arg)
        if inner and (options is None or len(min(inner, key=len)) > len(min(options, key=len))):
            options = inner
    best = max(best, run, key=len)
    if len(best) >= MIN_LITERAL and (options is None or len(best) >= len(min(options, key=len))):
        return [best]
    return options


def group_literals(op, arg) -> list[str] | None:
    if op is sre.SUBPATTERN and not arg[1] and not arg[2]:  # a group that changes no flag
        return sequence_literals(list(arg[3]))
    if op is sre.BRANCH:
        alternatives = [sequence_literals(list(alternative)) for alternative in arg[1]]
        return None if None in alternatives else [lit for found in alternatives for lit in found]
    if op in (sre.MAX_REPEAT, sre.MIN_REPEAT) and arg[0] >= 1:
        return sequence_literals(list(arg[2]))
    return None  # optional, a character class, an assertion: nothing it must contain


def first_look(patterns: list[str]) -> tuple[str, ...] | None:
    """The literals one of which any match of any of the patterns contains, fewest first: a literal
    that holds another is dropped (the shorter finds all it would). None: no first look possible."""
    found = set()
    for pattern in patterns:
        literals = required_literals(pattern) if pattern else None
        if not literals:
            return None
        found.update(literals)
    return tuple(sorted(lit for lit in found if not any(other != lit and other in lit for other in found)))


def may_match(literals: tuple[str, ...], text: str) -> bool:
    return any(map(text.__contains__, literals))  # no generator frame: this runs per observation and card
