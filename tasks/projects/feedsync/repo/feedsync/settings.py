"""Where the upstream services live. Each can be overridden by an environment variable."""

from __future__ import annotations

import os
from pathlib import Path

CATALOG_URL = os.environ.get("FEEDSYNC_CATALOG_URL", "http://127.0.0.1:8080")
RATES_URL = os.environ.get("FEEDSYNC_RATES_URL", "http://data.impasse.test:8000/rates.csv")
PRICING_URL = os.environ.get("FEEDSYNC_PRICING_URL", "https://pricing.internal:8443/overrides.json")
CACHE_DIR = Path(os.environ.get("FEEDSYNC_CACHE", Path(__file__).resolve().parent.parent / ".cache"))
TIMEOUT_SECONDS = 10
