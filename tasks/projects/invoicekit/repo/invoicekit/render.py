"""Plain-text rendering of an invoice for e-mail bodies and terminals."""

from __future__ import annotations

from invoicekit.config import Settings
from invoicekit.models import Invoice

WIDTH = 60


def render_text(invoice: Invoice, settings: Settings) -> str:
    out = [settings.seller, f"VAT ID {settings.vat_id}", "", f"Invoice {invoice.number}",
           f"Customer: {invoice.customer}", f"Date: {invoice.issued.isoformat()}", "-" * WIDTH]
    for line in invoice.lines:
        label = f"{line.quantity} x {line.description}"
        out.append(f"{label:<44}{str(line.net.rounded()):>16}")
    out.append("-" * WIDTH)
    out.append(f"{'Net':<44}{str(invoice.net_total):>16}")
    for rate, tax in invoice.tax_by_rate().items():
        out.append(f"{f'Tax {rate * 100:.0f}%':<44}{str(tax):>16}")
    out.append(f"{'Total':<44}{str(invoice.gross_total):>16}")
    return "\n".join(out) + "\n"
