"""An official SDK client built the same way for every vendor: key and endpoint from the environment
(never written anywhere), our own retries instead of the SDK's, and a clear error if not installed."""

from __future__ import annotations

import importlib
import os

from impasse.models import TransportError


def make_client(package: str, factory: str, vendor: str, base_url: str | None, timeout: float):
    try:
        module = importlib.import_module(package)
    except ImportError as err:  # pragma: no cover - the extras are part of the default install
        raise TransportError(f"the {package} package is not installed: pip install 'impasse[{package}]'") from err
    return getattr(module, factory)(
        api_key=os.environ.get(f"{vendor}_API_KEY") or "not-needed",
        base_url=base_url or os.environ.get(f"{vendor}_BASE_URL") or None,
        timeout=timeout, max_retries=0)
