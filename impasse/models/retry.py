"""Bounded retries for endpoint failures, decided by what the failure means (models/errors.py).

A passing failure (429, overload, 5xx, no answer) is asked again after a jittered, doubling pause,
or after the pause the provider asked for (`retry-after`), never longer than IMPASSE_MODEL_MAX_WAIT.
A refusal is final at once: the conversation outgrew the window (`ContextExhausted`, the agent's
doing), or the request itself is refused (`RequestRefused`: the key, the model, a parameter, tools).
"""

from __future__ import annotations

import os
import random
from collections.abc import Callable
from time import sleep
from typing import TypeVar

from impasse.models.errors import FailureKind, ProviderFailure
from impasse.models.failures import ContextExhausted, RequestRefused, TransportError

T = TypeVar("T")


def with_retries(call: Callable[[], T], describe: Callable[[Exception], ProviderFailure | None], what: str) -> T:
    """`call()` until it answers. `describe(err)` reads an exception as the endpoint's failure, or
    None for anything else (a bug on our side: raised unchanged). Attempts, first pause and longest
    pause come from IMPASSE_MODEL_ATTEMPTS (4), IMPASSE_MODEL_BACKOFF (1 s), IMPASSE_MODEL_MAX_WAIT
    (60 s). Raises ContextExhausted, RequestRefused, or TransportError when the attempts run out."""
    attempts = int(os.environ.get("IMPASSE_MODEL_ATTEMPTS", "4"))
    wait = float(os.environ.get("IMPASSE_MODEL_BACKOFF", "1.0"))
    longest = float(os.environ.get("IMPASSE_MODEL_MAX_WAIT", "60"))
    for attempt in range(1, attempts + 1):
        try:
            return call()
        except Exception as err:  # the SDKs raise many types; `describe` decides
            failure = describe(err)
            if failure is None:
                raise
            if failure.kind is FailureKind.CONTEXT_OVERFLOW:
                raise ContextExhausted(failure.message) from err
            if not failure.retryable:
                raise RequestRefused(what, failure.status, failure.message) from err
            if attempt == attempts:
                raise TransportError(f"{what} failed after {attempts} attempts: {said(failure)}") from err
            sleep(pause(failure, wait, longest))
            wait *= 2
    raise AssertionError("unreachable")


def pause(failure: ProviderFailure, backoff: float, longest: float) -> float:
    """The provider's own `retry-after` if it gave one, else the backoff, jittered so that 64
    episodes turned away by one rate limit do not all come back at once; never above `longest`
    (a provider asking for longer is waited the longest and asked again)."""
    if failure.retry_after is not None:
        return min(failure.retry_after * random.uniform(1.0, 1.1), longest)
    return min(backoff * random.uniform(0.5, 1.5), longest)


def said(failure: ProviderFailure) -> str:
    where = f"HTTP {failure.status}" if failure.status else failure.kind.value
    return f"{where}: {failure.message[:300]}"
