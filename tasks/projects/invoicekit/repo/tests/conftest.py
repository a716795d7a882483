from datetime import date
from pathlib import Path

import pytest

from invoicekit import Invoice, load_settings

FIXTURES = Path(__file__).parent / "fixtures"


@pytest.fixture
def settings():
    return load_settings(FIXTURES / "settings.yaml")


@pytest.fixture
def reduced_rate_invoice() -> Invoice:
    """Three books at the reduced rate: rounding per line and per rate give different tax."""
    invoice = Invoice("INV-00042", "Buchhandlung Weber", date(2026, 3, 14))
    invoice.add("Paperback", 1, "1.05", "0.07")
    invoice.add("Paperback", 1, "1.05", "0.07")
    invoice.add("Paperback", 1, "1.05", "0.07")
    return invoice


@pytest.fixture
def mixed_invoice() -> Invoice:
    invoice = Invoice("INV-00043", "Kanzlei Brandt", date(2026, 3, 15))
    invoice.add("Consulting hour", "2.5", "120.00", "0.19")
    invoice.add("Travel", 1, "33.33", "0.19")
    invoice.add("Reference book", 3, "12.45", "0.07")
    invoice.add("Reference book (ebook)", 3, "9.95", "0.07")
    return invoice
