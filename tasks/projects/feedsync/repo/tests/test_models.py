from decimal import Decimal

import pytest

from feedsync.models import BadRecord, FeedEntry, Product


def test_product_from_record_normalises_fields():
    product = Product.from_record({"sku": " SKU-1 ", "price": "9.5", "currency": "usd"})
    assert product == Product("SKU-1", "SKU-1", Decimal("9.5"), "USD", True)


@pytest.mark.parametrize("record", [
    {"price": "1", "currency": "EUR"},
    {"sku": "A", "price": "abc", "currency": "EUR"},
    {"sku": "A", "price": "-1", "currency": "EUR"},
    {"sku": "", "price": "1", "currency": "EUR"},
])
def test_bad_records_are_rejected(record):
    with pytest.raises(BadRecord):
        Product.from_record(record)


def test_feed_row_rounds_half_up_to_cents():
    assert FeedEntry("A", "T", Decimal("2.345")).as_row() == ["A", "T", "2.35", "catalog"]
    assert FeedEntry("B", "U", Decimal("5"), overridden=True).as_row()[2:] == ["5.00", "override"]
