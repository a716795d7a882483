"""Which of a matrix's planned runs may still start. Two guards against money spent on runs that
cannot measure anything: a circuit breaker per model (after K transport errors in a row from one
model its remaining runs are held, the other models go on) and a matrix-wide spend cap (once the
runs' cost reaches it, nothing more starts). A held run is simply not started: it has no result,
so the next start of the same matrix plans it again."""

from __future__ import annotations

import threading
from collections import Counter
from dataclasses import dataclass, field

from impasse.vocabulary import Outcome

BREAKER_AFTER = 5  # consecutive transport errors from one model before its remaining runs are held


@dataclass
class Admission:
    breaker_after: int = BREAKER_AFTER
    spend_cap: float | None = None  # USD over the whole matrix, earlier starts' runs included
    spent: float | None = 0.0  # None: a run's cost is unknown, so the spend can no longer be told
    streaks: Counter[str] = field(default_factory=Counter)  # consecutive transport errors per model
    tripped: set[str] = field(default_factory=set)
    lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def hold_reason(self, model: str) -> str | None:
        """Why a run of `model` may not start now, or None when it may."""
        with self.lock:
            if model in self.tripped:
                return f"{model}: {self.breaker_after} transport errors in a row (circuit breaker)"
            if self.spend_cap is None:
                return None
            if self.spent is None:
                return "a finished run's cost is unknown, so the spend cap cannot be kept"
            if self.spent >= self.spend_cap:
                return f"the spend cap was reached (${self.spent:.4f} of ${self.spend_cap:.4f})"
            return None

    def record(self, model: str, outcome: str | None, cost: float | None) -> None:
        """A run of `model` ended with `outcome` (None: it failed in the harness) at `cost` USD."""
        with self.lock:
            self.add_spend(cost)
            if outcome == Outcome.TRANSPORT_ERROR:
                self.streaks[model] += 1
                if self.streaks[model] >= self.breaker_after:
                    self.tripped.add(model)
            elif outcome is not None:
                self.streaks[model] = 0

    def add_spend(self, cost: float | None) -> None:
        if self.spent is not None:
            self.spent = None if cost is None else self.spent + cost
