"""`impasse tasks generate --rewriter openai:<model>`: a generated task's statement rewritten by a
model into a more natural bug report, through the same adapters as `impasse run`. The template
statement stays the ground: a rewrite that names what the statement must hide (the mutated file or
function), or that comes back empty, is discarded and the template kept."""

from __future__ import annotations

from impasse.models import Model

INSTRUCTIONS = ("You rewrite bug reports filed against an open-source Python project. Keep every fact "
                "(the failing tests' names, the values expected and received, the behaviour asked for); "
                "change only the wording, in the voice of a user who hit the bug. Never guess where in "
                "the code the bug is and never name a source file or function that the report does not "
                "name. Answer with the rewritten report alone.")


def rewrite_statement(model: Model, statement: str, hidden: tuple[str, ...]) -> tuple[str, bool]:
    """The rewritten statement and True, or the template and False when the rewrite cannot be used."""
    messages = [{"role": "system", "content": INSTRUCTIONS}, {"role": "user", "content": statement}]
    text = (model.complete(messages, []).text or "").strip()
    if not text or any(h and h in text for h in hidden):
        return statement, False
    return text, True
