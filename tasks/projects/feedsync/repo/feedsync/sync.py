"""Builds the price feed: every active catalog product, priced in EUR, overrides applied."""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass
from decimal import Decimal

from feedsync.catalog import active_products
from feedsync.models import FeedEntry, Product
from feedsync.pricing import load_overrides
from feedsync.rates import load_rates, to_eur


@dataclass(frozen=True)
class FeedReport:
    entries: list[FeedEntry]
    skipped: list[str]

    def to_csv(self) -> str:
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(["sku", "title", "price_eur", "source"])
        writer.writerows(entry.as_row() for entry in self.entries)
        return out.getvalue()


def price_entry(product: Product, rates: dict[str, Decimal],
                overrides: dict[str, Decimal]) -> FeedEntry:
    if product.sku in overrides:
        return FeedEntry(product.sku, product.title, overrides[product.sku], overridden=True)
    return FeedEntry(product.sku, product.title, to_eur(product.price, product.currency, rates))


def build_feed(products: list[Product], rates: dict[str, Decimal],
               overrides: dict[str, Decimal]) -> FeedReport:
    entries, skipped = [], []
    for product in sorted(products, key=lambda p: p.sku):
        if product.currency not in rates and product.sku not in overrides:
            skipped.append(product.sku)
            continue
        entries.append(price_entry(product, rates, overrides))
    return FeedReport(entries, skipped)


def sync() -> FeedReport:
    return build_feed(active_products(), load_rates(), load_overrides())
