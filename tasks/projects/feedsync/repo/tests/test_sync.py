"""The whole feed, end to end, against the real catalog service, rates file and pricing API."""

from decimal import Decimal

import pytest

from feedsync.catalog import active_products
from feedsync.pricing import load_overrides
from feedsync.rates import load_rates
from feedsync.sync import build_feed


@pytest.fixture
def report(tmp_path):
    return build_feed(active_products(), load_rates(cache_dir=tmp_path), load_overrides())


def test_feed_has_every_active_product(report):
    assert len(report.entries) == 33
    assert report.skipped == []


def test_feed_prices(report):
    rows = {entry.sku: entry.as_row() for entry in report.entries}
    assert rows["SKU-1003"][2:] == ["7.49", "override"]
    assert sum(Decimal(row[2]) for row in rows.values()) == Decimal("2628.98")
