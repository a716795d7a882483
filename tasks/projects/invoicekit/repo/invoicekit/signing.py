"""Signed invoice exports: canonical JSON plus an HMAC-SHA256 tag, so the accounting system can
tell an export was produced by us and not edited on the way."""

from __future__ import annotations

import hashlib
import hmac
import json
import os

from invoicekit.models import Invoice

KEY_VARIABLE = "INVOICE_SIGNING_KEY"


class SigningKeyMissing(RuntimeError):
    pass


class SignatureMismatch(ValueError):
    pass


def signing_key() -> bytes:
    value = os.environ.get(KEY_VARIABLE)
    if not value:
        raise SigningKeyMissing(f"{KEY_VARIABLE} is not set; exports cannot be signed or verified")
    return bytes.fromhex(value)


def export_document(invoice: Invoice) -> dict:
    invoice.validate()
    return {
        "number": invoice.number,
        "customer": invoice.customer,
        "issued": invoice.issued.isoformat(),
        "currency": invoice.currency,
        "lines": [
            {"description": line.description, "quantity": str(line.quantity),
             "unit_price": str(line.unit_price.amount), "tax_rate": str(line.tax_rate)}
            for line in invoice.lines
        ],
        "net_total": f"{invoice.net_total.amount:.2f}",
        "tax_total": f"{invoice.tax_total.amount:.2f}",
        "gross_total": f"{invoice.gross_total.amount:.2f}",
    }


def canonical_bytes(document: dict) -> bytes:
    return json.dumps(document, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def sign(document: dict, key: bytes | None = None) -> str:
    return hmac.new(key or signing_key(), canonical_bytes(document), hashlib.sha256).hexdigest()


def verify(document: dict, signature: str, key: bytes | None = None) -> None:
    expected = sign(document, key)
    if not hmac.compare_digest(expected, signature):
        raise SignatureMismatch(f"signature of invoice {document.get('number')} does not match")


def signed_export(invoice: Invoice) -> dict:
    document = export_document(invoice)
    return {"document": document, "signature": sign(document)}
