"""Bounded retries with exponential backoff for endpoint failures (429, 5xx, timeouts, resets)."""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from typing import TypeVar

from impasse.models import TransportError

T = TypeVar("T")
ATTEMPTS = int(os.environ.get("IMPASSE_MODEL_ATTEMPTS", "4"))
FIRST_WAIT = float(os.environ.get("IMPASSE_MODEL_BACKOFF", "1.0"))


def with_retries(call: Callable[[], T], retryable: Callable[[Exception], bool], what: str) -> T:
    wait = FIRST_WAIT
    for attempt in range(1, ATTEMPTS + 1):
        try:
            return call()
        except Exception as err:  # the SDKs raise many types; `retryable` decides
            if not retryable(err):
                raise TransportError(f"{what}: {type(err).__name__}: {str(err)[:300]}") from err
            if attempt == ATTEMPTS:
                raise TransportError(f"{what} failed after {ATTEMPTS} attempts: "
                                     f"{type(err).__name__}: {str(err)[:300]}") from err
            time.sleep(wait)
            wait *= 2
    raise AssertionError("unreachable")
