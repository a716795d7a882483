"""The watch on an external agent's start: an agent that sends the relay no request within the
start-up timeout (IMPASSE_AGENT_START_TIMEOUT, 300 s) is stopped, as its wall clock would stop it,
and its run ends as the harness's failure. Hung before its first request, it would otherwise hold
its container for the whole wall clock: every step's tool and model timeouts, hours at the default
budget, for a run that measures nothing."""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Iterator

from impasse.agents.launch import stop_command
from impasse.agents.relay import Relay
from impasse.infra.sandbox import AGENT_USER, SandboxUnavailable
from impasse.vocabulary import Ending

START_TIMEOUT = 300.0  # seconds; an agent's first request comes within seconds of its start


def start_timeout() -> float:
    return float(os.environ.get("IMPASSE_AGENT_START_TIMEOUT") or START_TIMEOUT)


@contextlib.contextmanager
def first_request_watch(box, relay: Relay, seconds: float) -> Iterator[None]:
    """Around the agent's run: past `seconds` with no request heard, the episode's ending is set (the
    relay answers any later request with its stop) and the agent is stopped in its container."""
    over = threading.Event()

    def watch() -> None:
        if over.wait(seconds) or relay.heard:
            return
        with relay.lock:
            relay.clock.end(Ending.HARNESS_ERROR, f"the agent sent no request within {seconds:g} s of its start "
                                                  "(IMPASSE_AGENT_START_TIMEOUT)")
        with contextlib.suppress(SandboxUnavailable):  # a container gone has taken the agent with it
            box.exec(stop_command(), user=AGENT_USER)

    thread = threading.Thread(target=watch, name="impasse-start-watch", daemon=True)
    thread.start()
    try:
        yield
    finally:
        over.set()
        thread.join()
