"""Price overrides from the pricing team's internal HTTPS endpoint: {"SKU": "12.99", ...} in EUR.
The endpoint's certificate is issued by the company CA, which the system trust store holds."""

from __future__ import annotations

from decimal import Decimal

from feedsync.http import UpstreamError, get_json
from feedsync.settings import PRICING_URL


def load_overrides(url: str = PRICING_URL) -> dict[str, Decimal]:
    data = get_json(url)
    if not isinstance(data, dict):
        raise UpstreamError("overrides must be a JSON object")
    return {str(sku): Decimal(str(price)) for sku, price in data.items()}
