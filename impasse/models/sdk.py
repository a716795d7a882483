"""An official SDK client built the same way for every vendor: key and endpoint from the environment
(never written anywhere), our own retries instead of the SDK's, and a clear error if not installed.

One client per endpoint is shared by every run of the process. Building a client costs ~50 ms of
CPU (its TLS context) and keeps its own connections open until it is collected; a matrix of
thousands of runs, 64 at a time, would pay that per run and hold a connection per finished run.
The shared client's pool keeps a warm connection for every worker (`size_pools`)."""

from __future__ import annotations

import importlib
import os
import threading

from impasse.models.failures import TransportError

KEEPALIVE_EXPIRY = 30.0  # longer than a slow model turn, so a worker's connection survives between turns
_clients: dict[tuple, object] = {}
_lock = threading.Lock()
_workers = 0  # requests this process makes at once (`size_pools`); 0: the SDK's own pool size


def size_pools(workers: int) -> None:
    """Warm connections for `workers` requests at once, for clients made from now on."""
    global _workers
    with _lock:
        _workers = workers


def make_client(package: str, factory: str, vendor: str, base_url: str | None, timeout: float,
                key_env: str | None = None):
    try:
        module = importlib.import_module(package)
    except ImportError as err:  # pragma: no cover - the extras are part of the default install
        raise TransportError(f"the {package} package is not installed: pip install 'impasse[{package}]'") from err
    key = os.environ.get(key_env or f"{vendor}_API_KEY") or "not-needed"
    url = base_url or os.environ.get(f"{vendor}_BASE_URL") or None
    keepalive = max(module.DEFAULT_CONNECTION_LIMITS.max_keepalive_connections, _workers)
    # The key is part of the cache key (in memory only) so a changed key never reuses a client.
    wanted = (package, factory, key, url, timeout, keepalive)
    with _lock:
        if wanted not in _clients:
            _clients[wanted] = getattr(module, factory)(
                api_key=key, base_url=url, timeout=timeout, max_retries=0,
                http_client=http_client(module, timeout, keepalive))
        return _clients[wanted]


def http_client(module, timeout: float, keepalive: int):
    """The SDK's own HTTP client class (its defaults: redirects, headers) and its own connection
    limits, with `keepalive` warm connections kept longer."""
    default = module.DEFAULT_CONNECTION_LIMITS
    limits = type(default)(max_connections=max(default.max_connections, keepalive),
                           max_keepalive_connections=keepalive, keepalive_expiry=KEEPALIVE_EXPIRY)
    return module.DefaultHttpxClient(limits=limits, timeout=timeout)
