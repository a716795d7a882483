"""Fail fast, before containers: one cheap request per distinct model endpoint, with the tools and
the model's settings attached, so a wrong key, an unknown model, a refused setting or an endpoint
that does not take tools is one line naming the model and the provider's message — before a run or
a matrix starts anything, and before any money is spent on episodes that could only fail."""

from __future__ import annotations

import threading
from dataclasses import dataclass

from impasse.episode.tools import TOOLS
from impasse.models import ContextExhausted, RequestRefused, TransportError, make_model
from impasse.models.config import ModelConfig


@dataclass(frozen=True)
class Refusal:
    model: str  # the model's label
    message: str  # the provider's own words, or why it could not be reached

    def __str__(self) -> str:
        return f"{self.model}: refused at preflight, no container started: {self.message}"


def endpoint_of(config: ModelConfig) -> tuple:
    """Two labels of one endpoint with one key and the same settings are asked once."""
    return config.spec, config.base_url, config.key_env, repr(config.settings)


def preflight(configs: list[ModelConfig], timeout: float) -> list[Refusal]:
    """The refusals, one per model that cannot work (scripted policies are never asked)."""
    answers: dict[tuple, str | None] = {}
    refusals = []
    for config in configs:
        if config.kind == "scripted":
            continue
        key = endpoint_of(config)
        if key not in answers:
            answers[key] = ask(config, timeout)
        if answers[key] is not None:
            refusals.append(Refusal(config.label, answers[key]))
    return refusals


# The whole preflight of one endpoint, retries included: one that hangs is refused, not waited on for
# the model timeout times every retry.
DEADLINE = 45.0


def ask(config: ModelConfig, timeout: float, deadline: float = DEADLINE) -> str | None:
    """The preflight's answer, asked on a thread of its own so that a deadline holds whatever the
    endpoint does (a thread cannot be killed: one still waiting is left to the process's exit)."""
    answer: list[str | None] = []
    worker = threading.Thread(target=lambda: answer.append(answer_of(config, min(timeout, deadline))),
                              name="impasse-preflight", daemon=True)
    worker.start()
    worker.join(deadline)
    if not answer:
        return f"the endpoint did not answer within {deadline:.0f}s"
    return answer[0]


def answer_of(config: ModelConfig, timeout: float) -> str | None:
    model = make_model(config.spec, base_url=config.base_url, timeout=timeout, settings=config.settings,
                       key_env=config.key_env)
    try:
        model.preflight(TOOLS)
    except ContextExhausted as err:  # a one-line prompt that does not fit: the window is unusable
        return f"the endpoint says a one-line request is too long: {err}"
    except RequestRefused as err:  # the provider's own words
        return f"HTTP {err.status}: {err.message}" if err.status else err.message
    except TransportError as err:
        return f"the endpoint cannot be reached: {err}"
    except Exception as err:  # noqa: BLE001 — an answer that is not the API's (an HTML page, a proxy's)
        return f"the endpoint's answer is not the {config.kind} API's: {type(err).__name__}: {str(err)[:200]}"
    return None
