"""A wall an agent's own harness reports in its own words: its permission mode holding a tool use, its
sandbox refusing a process, its fetch tool finding no network. The blocker is the card's; only the words
are the agent's, so they live with the rest of its dialect and the card reads them beside its own
signatures (catalog/cards.py)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Wall:
    card: str  # the blocker card whose signature this is (chown_root, network_down_download, …)
    pattern: str
    reason: str
