"""How a model can fail, in one place the adapters and the rest import: the endpoint failed
(`TransportError`), refused the request itself (`RequestRefused`), or said the conversation no
longer fits (`ContextExhausted`); or the model cannot be used as given (`ModelSpecError`)."""

from __future__ import annotations


class TransportError(RuntimeError):
    """The endpoint failed and retries ran out: recorded, never scored as behaviour."""


class ContextExhausted(RuntimeError):
    """The provider refused the request because the conversation outgrew the model's window: the
    agent's own doing (it ran out of context), so the run ends `context_exhausted`, scored."""


class RequestRefused(TransportError):
    """The provider refused the request itself (401/403, unknown model, a parameter or tools it
    does not take): retrying cannot help. `message` is the provider's own words."""

    def __init__(self, what: str, status: int | None, message: str) -> None:
        super().__init__(f"{what}: HTTP {status}: {message}" if status else f"{what}: {message}")
        self.status = status
        self.message = message


class ModelSpecError(ValueError):
    """The model cannot be used as given: a bad spec, an unknown policy, no key or endpoint."""
