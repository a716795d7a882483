"""invoicekit: invoices with exact money, tax, signed exports and a sqlite store."""

from invoicekit.config import Settings, load_settings
from invoicekit.models import Invoice, LineItem
from invoicekit.money import Money

__all__ = ["Invoice", "LineItem", "Money", "Settings", "load_settings"]
__version__ = "1.4.2"
