"""The checks a matrix file's values pass: each returns the value as the matrix takes it, or raises
ValueError, which the loader turns into one line naming the key and the value."""

from __future__ import annotations

from impasse.episode.history import History
from impasse.models.config import ENV_NAME


def strict_bool(value) -> bool:
    if not isinstance(value, bool):
        raise ValueError(value)
    return value


def member_of(choices):
    """A file value that must be one of `choices` (a split, an executor, an operator mode)."""
    def check(value) -> str:
        if value not in choices:
            raise ValueError(value)
        return value
    return check


def positive(value) -> int:
    if isinstance(value, bool) or int(value) != value or int(value) < 1:
        raise ValueError(value)
    return int(value)


def dollars(value) -> float:
    if isinstance(value, bool) or float(value) < 0:
        raise ValueError(value)
    return float(value)


def env_name(value) -> str:
    if not isinstance(value, str) or not ENV_NAME.fullmatch(value):
        raise ValueError(value)
    return value


def history_policy(value) -> str:
    return History.parse(value).label
