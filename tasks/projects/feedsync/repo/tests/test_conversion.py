from decimal import Decimal

import pytest

from feedsync.models import Product
from feedsync.rates import UnknownCurrency, parse_rates, to_eur
from feedsync.sync import build_feed

RATES = parse_rates("currency,per_eur\nUSD,1.25\nGBP,0.80\n")


def test_rates_csv_is_parsed_with_euro_added():
    assert RATES == {"EUR": Decimal("1"), "USD": Decimal("1.25"), "GBP": Decimal("0.80")}


def test_euro_prices_stay_unchanged():
    assert to_eur(Decimal("10"), "EUR", RATES) == Decimal("10")


def test_foreign_prices_are_converted_to_euro():
    # one euro buys 1.25 dollars, so 10 dollars are 8 euros
    assert to_eur(Decimal("10"), "USD", RATES) == Decimal("8")
    assert to_eur(Decimal("8"), "gbp", RATES) == Decimal("10")


def test_unknown_currency_is_an_error():
    with pytest.raises(UnknownCurrency):
        to_eur(Decimal("1"), "XYZ", RATES)


def test_feed_applies_overrides_and_skips_unpriceable_products():
    products = [Product("B", "b", Decimal("5"), "USD"), Product("A", "a", Decimal("3"), "XYZ"),
                Product("C", "c", Decimal("2"), "XYZ")]
    report = build_feed(products, RATES, {"C": Decimal("1.99")})
    assert [entry.as_row() for entry in report.entries] == [["B", "b", "4.00", "catalog"],
                                                           ["C", "c", "1.99", "override"]]
    assert report.skipped == ["A"]
    assert report.to_csv().splitlines()[0] == "sku,title,price_eur,source"
