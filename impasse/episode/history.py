"""What of the conversation the model is sent each turn (`--history`). `full`, the default, sends
all of it; `last:N` keeps the last N tool observations whole and replaces older ones with a line
that says how much was elided, as SWE-agent's `last_n_observations` history processor does, so runs
on small-window models can go on. The run's own record (steps.jsonl) always keeps every output:
the policy changes what the model sees, never what is scored. Eliding moves the start of the
conversation every turn, so a provider's prompt cache reads less of it."""

from __future__ import annotations

import re
from dataclasses import dataclass

FULL = "full"
LAST = re.compile(r"last:(\d+)")


class HistoryError(ValueError):
    pass


@dataclass(frozen=True)
class History:
    keep: int | None = None  # tool observations kept whole, the latest ones; None: all of them

    @classmethod
    def parse(cls, value: str) -> History:
        if value == FULL:
            return cls()
        match = LAST.fullmatch(value)
        if not match or int(match.group(1)) < 1:
            raise HistoryError(f"--history {value!r}: use `full` or `last:N` (N ≥ 1 observations kept whole)")
        return cls(int(match.group(1)))

    @property
    def label(self) -> str:
        return FULL if self.keep is None else f"last:{self.keep}"

    def view(self, messages: list[dict]) -> list[dict]:
        """The messages as the model is sent them (the loop's own list is left as it is)."""
        if self.keep is None:
            return messages
        tools = [i for i, message in enumerate(messages) if message["role"] == "tool"]
        old = set(tools[:-self.keep])
        return [elided(message) if i in old else message for i, message in enumerate(messages)]


WHOLE = History()  # the default: everything is sent


def elided(message: dict) -> dict:
    return {**message, "content": f"[{len(message['content'])} characters of old output elided by the history "
                                  f"policy]"}
