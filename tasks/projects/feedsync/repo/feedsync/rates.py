"""Exchange rates: a CSV published by the data team (`currency,per_eur`: how many units of the
currency one euro buys), downloaded once into the cache folder."""

from __future__ import annotations

import csv
import io
from decimal import Decimal
from pathlib import Path

from feedsync.http import get_bytes
from feedsync.settings import CACHE_DIR, RATES_URL


class UnknownCurrency(KeyError):
    pass


def download_rates(url: str = RATES_URL, cache_dir: Path = CACHE_DIR) -> Path:
    cache_dir.mkdir(parents=True, exist_ok=True)
    target = cache_dir / "rates.csv"
    if not target.exists():
        data = get_bytes(url)
        partial = target.with_suffix(".part")
        partial.write_bytes(data)
        partial.replace(target)
    return target


def parse_rates(text: str) -> dict[str, Decimal]:
    rates = {"EUR": Decimal("1")}
    for row in csv.DictReader(io.StringIO(text)):
        rates[row["currency"].strip().upper()] = Decimal(row["per_eur"].strip())
    return rates


def load_rates(url: str = RATES_URL, cache_dir: Path = CACHE_DIR) -> dict[str, Decimal]:
    return parse_rates(download_rates(url, cache_dir).read_text(encoding="utf-8"))


def to_eur(amount: Decimal, currency: str, rates: dict[str, Decimal]) -> Decimal:
    try:
        per_eur = rates[currency.upper()]
    except KeyError as err:
        raise UnknownCurrency(currency) from err
    return amount / per_eur
