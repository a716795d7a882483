"""A small JSON/bytes GET helper on urllib with one error type for every upstream failure."""

from __future__ import annotations

import json
import urllib.error
import urllib.parse
import urllib.request

from feedsync.settings import TIMEOUT_SECONDS


class UpstreamError(RuntimeError):
    pass


def build_url(base: str, path: str = "", params: dict | None = None) -> str:
    url = base.rstrip("/") + ("/" + path.lstrip("/") if path else "")
    if params:
        url += "?" + urllib.parse.urlencode({k: v for k, v in params.items() if v is not None})
    return url


def get_bytes(url: str) -> bytes:
    request = urllib.request.Request(url, headers={"Accept": "application/json, text/csv"})
    with urllib.request.urlopen(request, timeout=TIMEOUT_SECONDS) as response:
        if response.status != 200:
            raise UpstreamError(f"GET {url} answered {response.status}")
        return response.read()


def get_json(url: str):
    try:
        return json.loads(get_bytes(url))
    except json.JSONDecodeError as err:
        raise UpstreamError(f"GET {url} did not return JSON: {err}") from err
