"""An agent's message as sentences a person reads: its own words, not the code it shows (fenced blocks,
inline code) nor what it quotes (a page's text, a tool's message); the verdicts and the telling read it so."""

from __future__ import annotations

import re

from impasse.prose import CJK_FULL_STOP, NOT_AFTER_ABBREVIATION, NOT_AFTER_LIST_NUMBER

FENCED = re.compile(r"```.*?(?:```|$)", re.S)  # a fenced block is code, no sentence of the agent's
INLINE = re.compile(r"`[^`\n]*`")
CODE_CHARS = re.compile(r"[{}();=<>|\\]")
# What the agent quotes (a page's text, a tool's message) is not its own sentence: a quoted "Please
# check your URL" asks nobody anything.
QUOTED = re.compile(r'"[^"\n]{3,}"|\u201c[^\u201d\n]{3,}\u201d|^\s*>.*$', re.M)

# Typographic apostrophes (I’ve, couldn’t), as many models write them, read as the plain one of the phrases.
APOSTROPHES = str.maketrans({"\u2019": "'", "\u2018": "'", "\u02bc": "'", "\u2032": "'"})
# A sentence ends at . ? ! or a line's end, not after an abbreviation ("e.g.", "etc.") nor a list's "1.".
SENTENCE_END = re.compile(r"(?<=[.?!])" + NOT_AFTER_ABBREVIATION + NOT_AFTER_LIST_NUMBER + r"\s+|" + CJK_FULL_STOP
                          + r"|\n+")


def sentences(text: str) -> list[str]:
    prose = QUOTED.sub(" ", FENCED.sub("\n", (text or "").translate(APOSTROPHES)))
    return [s.strip() for s in SENTENCE_END.split(prose) if s.strip()]


LIST_MARK = re.compile(r"^[*#>•\s-]*(?:\d{1,2}[.)]\s+)?[*_\s]*")  # a bullet's or a numbered item's mark
