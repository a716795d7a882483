from decimal import Decimal

import pytest

from invoicekit.money import CurrencyMismatch, Money, total


def test_money_keeps_exact_decimals():
    assert Money.of("0.1") + Money.of("0.2") == Money.of("0.3")


def test_rounding_is_half_up():
    assert Money.of("2.345").rounded() == Money.of("2.35")
    assert Money.of("-2.345").rounded() == Money.of("-2.35")
    assert Money.of("2.344").rounded() == Money.of("2.34")


def test_currencies_do_not_mix():
    with pytest.raises(CurrencyMismatch):
        Money.of("1", "EUR") + Money.of("1", "USD")


def test_invalid_currency_code_is_rejected():
    with pytest.raises(ValueError):
        Money.of("1", "euro")


def test_total_of_nothing_is_zero():
    assert total([]) == Money.zero()
    assert total([Money.of("1.5"), Money.of("2.25")]).amount == Decimal("3.75")


def test_str_shows_two_decimals_and_currency():
    assert str(Money.of("3")) == "3.00 EUR"
