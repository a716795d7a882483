"""Problem statements for generated tasks, written without a model from what the failing tests show:
their names, their assertion messages, what they expect. The voice is a user's bug report. The
statement never names the mutated file, function or line: it only knows the tests' side.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass

from impasse.hashing import hash_text

ADDRESS = re.compile(r" at 0x[0-9a-f]+")
SOURCE_LOCATION = re.compile(r"\S+\.py:\d+")
MAX_SHOWN = 4
MAX_MESSAGE = 220


@dataclass(frozen=True)
class Failure:
    test: str  # pytest node id
    messages: tuple[str, ...] = ()  # what pytest printed after `E ` for it, in order


def behaviour(test_id: str) -> str:
    """`tests/test_tables.py::TestX::test_insert_multiple[ids]` → `insert multiple (ids)`."""
    name = test_id.split("::")[-1]
    params = ""
    if "[" in name:
        name, params = name.split("[", 1)
        params = f" ({params.rstrip(']')})"
    words = re.sub(r"^test_?", "", name).replace("_", " ").strip()
    return (words or name) + params


def clean(message: str, hidden: tuple[str, ...]) -> str | None:
    """One message line fit to quote: no memory addresses, and nothing that points into the code
    under repair (a file, a line or a name the bug lives in)."""
    text = ADDRESS.sub("", message).strip()
    if not text or SOURCE_LOCATION.search(text) or any(h and h in text for h in hidden):
        return None
    return text if len(text) <= MAX_MESSAGE else text[:MAX_MESSAGE - 1] + "…"


OPENINGS = (
    "I'm using {project} {version} and some things that used to work are broken.",
    "After installing {project} {version} I ran into a regression.",
    "Something is off in {project} {version}.",
    "We hit a bug in {project} {version} ({description}).",
)
EXPECTATIONS = (
    "I'd expect these to behave as the tests describe; right now they do not.",
    "The behaviour those tests describe is what the documentation promises, so this looks like a bug.",
    "Could you take a look? The tests spell out what should happen.",
)


def write_statement(project: str, version: str, description: str, failures: list[Failure],
                    hidden: tuple[str, ...] = (), seed: int = 0) -> str:
    """A bug report for the failures. `hidden` lists strings the statement must not contain (the
    mutated file's path and function name); a message that mentions one is left out."""
    rng = random.Random(hash_text(project, version, str(seed), *(f.test for f in failures)))
    shown = failures[:MAX_SHOWN]
    lines = [rng.choice(OPENINGS).format(project=project, version=version, description=description), ""]
    if len(failures) == 1:
        lines.append(f"The project's own test `{failures[0].test}` fails: {behaviour(failures[0].test)} "
                     "no longer works.")
    else:
        lines.append(f"{len(failures)} of the project's own tests fail, for example:")
        lines += [f"- `{f.test}` ({behaviour(f.test)})" for f in shown]
        if len(failures) > len(shown):
            lines.append(f"- … and {len(failures) - len(shown)} more")
    quoted = []
    for failure in shown:
        kept = [m for m in (clean(m, hidden) for m in failure.messages) if m]
        if kept:
            quoted.append((failure.test, kept[:3]))
    if quoted:
        lines += ["", "What I see:"]
        for test, messages in quoted[:2]:
            lines.append(f"- {behaviour(test)}:")
            lines += [f"    {m}" for m in messages]
    lines += ["", rng.choice(EXPECTATIONS),
              f"To reproduce: `python3 -m pytest {' '.join(f.test for f in shown)}`"]
    return "\n".join(lines) + "\n"
