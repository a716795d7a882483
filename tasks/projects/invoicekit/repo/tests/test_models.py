from datetime import date
from decimal import Decimal

import pytest

from invoicekit.models import Invoice, InvoiceError
from invoicekit.money import Money


def test_net_of_a_line_is_quantity_times_price():
    invoice = Invoice("INV-1", "A", date(2026, 1, 1))
    line = invoice.add("Widget", 3, "2.50")
    assert line.net == Money.of("7.50")


def test_tax_is_rounded_once_per_rate(reduced_rate_invoice):
    # 3 x 1.05 at 7% is 0.2205 of tax: 0.22, not three times a rounded 0.07
    assert reduced_rate_invoice.tax_by_rate() == {Decimal("0.07"): Money.of("0.22")}
    assert reduced_rate_invoice.tax_total == Money.of("0.22")


def test_gross_total_with_mixed_rates(mixed_invoice):
    assert mixed_invoice.net_total == Money.of("400.53")
    assert mixed_invoice.tax_by_rate() == {Decimal("0.07"): Money.of("4.70"),
                                           Decimal("0.19"): Money.of("63.33")}
    assert mixed_invoice.gross_total == Money.of("468.56")


def test_discount_applies_before_tax():
    invoice = Invoice("INV-2", "B", date(2026, 1, 2), discount_percent=Decimal("10"))
    invoice.add("Licence", 1, "100.00", "0.19")
    assert invoice.net_total == Money.of("90.00")
    assert invoice.tax_total == Money.of("17.10")


def test_quantity_must_be_positive():
    invoice = Invoice("INV-3", "C", date(2026, 1, 3))
    with pytest.raises(InvoiceError):
        invoice.add("Nothing", 0, "1.00")


def test_tax_rate_must_be_a_fraction():
    invoice = Invoice("INV-4", "D", date(2026, 1, 4))
    with pytest.raises(InvoiceError):
        invoice.add("Odd", 1, "1.00", "19")


def test_empty_invoice_does_not_validate():
    with pytest.raises(InvoiceError, match="no lines"):
        Invoice("INV-5", "E", date(2026, 1, 5)).validate()


def test_line_in_foreign_currency_does_not_validate():
    invoice = Invoice("INV-6", "F", date(2026, 1, 6), currency="EUR")
    invoice.lines.append(
        type(invoice.add("x", 1, "1"))("y", Decimal("1"), Money.of("1", "USD")))
    with pytest.raises(InvoiceError, match="not in EUR"):
        invoice.validate()
