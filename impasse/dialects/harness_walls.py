"""Every dialect's walls, by card: what `catalog/cards.py` adds to a card's own signatures, and the
dialect files a card's content hash must cover (a changed wording changes what the card matches)."""

from __future__ import annotations

from pathlib import Path

from impasse.dialects import claude_code, codex, gemini_cli, pi
from impasse.dialects.wall import Wall

DIALECTS = (claude_code, codex, gemini_cli, pi)
ALL_WALLS = tuple(wall for dialect in DIALECTS for wall in dialect.WALLS)


def walls_of(card_id: str) -> tuple[Wall, ...]:
    return tuple(wall for wall in ALL_WALLS if wall.card == card_id)


def wall_files(card_id: str) -> tuple[Path, ...]:
    return tuple(Path(d.__file__) for d in DIALECTS if any(w.card == card_id for w in d.WALLS))
