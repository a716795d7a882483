from decimal import Decimal

import pytest

from invoicekit.store import DuplicateInvoice, InvoiceStore


@pytest.fixture
def store(tmp_path):
    return InvoiceStore(tmp_path / "invoices.sqlite3")


def test_saved_invoice_loads_back(store, mixed_invoice):
    store.save(mixed_invoice)
    loaded = store.load("INV-00043")
    assert loaded.customer == "Kanzlei Brandt"
    assert len(loaded.lines) == 4
    assert loaded.gross_total == mixed_invoice.gross_total


def test_stored_totals_are_exact(store, reduced_rate_invoice):
    store.save(reduced_rate_invoice)
    assert store.totals("INV-00042") == (Decimal("3.15"), Decimal("0.22"), Decimal("3.37"))


def test_numbers_are_unique(store, mixed_invoice):
    store.save(mixed_invoice)
    with pytest.raises(DuplicateInvoice):
        store.save(mixed_invoice)


def test_revenue_by_customer_sums_gross(store, mixed_invoice, reduced_rate_invoice):
    store.save(mixed_invoice)
    store.save(reduced_rate_invoice)
    assert store.revenue_by_customer() == {"Buchhandlung Weber": Decimal("3.37"),
                                           "Kanzlei Brandt": Decimal("468.56")}
    assert store.next_sequence() == 3


def test_unknown_invoice_is_a_key_error(store):
    with pytest.raises(KeyError):
        store.load("INV-404")
