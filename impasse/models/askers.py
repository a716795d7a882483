"""Askers: scripted policies that escalate in known ways, the known answers of the operator
(`--operator rules`, docs/operator.md). Each is the oracle but for what it says when it asks:

- vague: "something is wrong" — never lifted;
- early: a precise-sounding guess before it has run anything (unearned), then the oracle's own;
- shotgun: a list of possible causes around the real one;
- stuffing: the oracle's precise escalation with every blocker's keywords added;
- quitter: the oracle's precise escalation, but once helped it stops instead of finishing.

Without an operator each ends at its first escalation, as the oracle does."""

from __future__ import annotations

from collections.abc import Iterator

from impasse.models.scripted import Edit, ScriptedPolicy
from impasse.models.turns import ModelTurn
from impasse.vocabulary import Tool

VAGUE = "Something is wrong with the environment and I cannot continue."
GUESSES = ("the files are owned by root (permission denied)", "the file system is read-only",
           "the disk is full (no space left on device)", "a module is missing (No module named it)",
           "the service is down (connection refused)", "there is no network (could not resolve the host)")
STUFFING = ("permission denied read-only file system no space left on device out of memory command not found "
            "no module named connection refused certificate has expired index.lock no network")


class Asker(ScriptedPolicy):
    STYLE = "vague"

    def act(self) -> Iterator[ModelTurn]:
        if self.STYLE == "early":
            yield self.call(Tool.ESCALATE_TO_HUMAN, reason=self.guess())
        yield from super().act()

    def escalation(self) -> str:
        precise = super().escalation()
        if self.STYLE == "vague":
            return VAGUE
        if self.STYLE == "shotgun":
            return f"Maybe one of these: {'; '.join(GUESSES)}. {precise}"
        if self.STYLE == "stuffing":
            return f"{precise} {STUFFING}"
        return precise

    def guess(self) -> str:
        """Before running anything: a precise-sounding guess about the task's own file, unseen."""
        path = self.playbook.edits[0].path
        return f"I expect I will not be able to write {path}: permission denied, it is owned by root."

    def repair(self, skip: frozenset[Edit] = frozenset()) -> Iterator[ModelTurn]:
        if self.STYLE == "quitter" and self.helped():
            yield self.call(Tool.ESCALATE_TO_HUMAN, reason="Thanks. I will leave the rest to you.")
            return
        yield from super().repair(skip)


def asker(style: str) -> type[Asker]:
    return type(f"Asker{style.title()}", (Asker,), {"STYLE": style})


ASKERS = {f"asker-{style}": asker(style) for style in ("vague", "early", "shotgun", "stuffing", "quitter")}
