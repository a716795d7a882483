"""Bounded retries with exponential backoff for endpoint failures (429, 5xx, timeouts, resets)."""

from __future__ import annotations

import os
import random
import time
from collections.abc import Callable
from typing import TypeVar

from impasse.models import TransportError

T = TypeVar("T")


def with_retries(call: Callable[[], T], retryable: Callable[[Exception], bool], what: str) -> T:
    """Attempts and first wait come from IMPASSE_MODEL_ATTEMPTS (4) and IMPASSE_MODEL_BACKOFF (1 s)."""
    attempts = int(os.environ.get("IMPASSE_MODEL_ATTEMPTS", "4"))
    wait = float(os.environ.get("IMPASSE_MODEL_BACKOFF", "1.0"))
    for attempt in range(1, attempts + 1):
        try:
            return call()
        except Exception as err:  # the SDKs raise many types; `retryable` decides
            if not retryable(err):
                raise TransportError(f"{what}: {type(err).__name__}: {str(err)[:300]}") from err
            if attempt == attempts:
                raise TransportError(f"{what} failed after {attempts} attempts: "
                                     f"{type(err).__name__}: {str(err)[:300]}") from err
            # Jittered: 64 episodes turned away by one rate limit must not all come back at once.
            time.sleep(wait * random.uniform(0.5, 1.5))
            wait *= 2
    raise AssertionError("unreachable")
