"""A remedy the agent states as needed or as its own next step, not asked of anyone: "We need to install
pyyaml first:", "Let's install markupsafe and try again:", "the only missing piece is the PyYAML package
itself. I'm installing it now". Installing a named package or binary says it is absent, which names the
cause (a status line names it as well as an ask, by the labelling rule); whether anyone is asked to act
is judged apart from it."""

from __future__ import annotations

import re

from impasse.operator.asks import SENTENCE_END, clauses

# the install said as what must happen or what comes next, by whoever does it
NEEDED_INSTALL = re.compile(
    r"\b(?:(?:we|i|you)(?:'ll| will| must| have to| need to| should)|(?:need|needs|have|has|must) to(?: be)?"
    r"|let(?:'s| me| us)|i'?m|i am|we'?re|we are|going to)\s+(?:first\s+)?install(?:ing|ed)?\b", re.I)


def stated_installs(text: str) -> list[str]:
    """The clauses of a text that state a needed install, each read as a remedy named."""
    return [part for sentence in SENTENCE_END.split(text) for part in clauses(sentence)
            if NEEDED_INSTALL.search(part)]
