"""Signed exports. The archived export was signed by the accounting system's key, which the test
environment provides as INVOICE_SIGNING_KEY (it is not stored in the repository)."""

import json
from datetime import date

import pytest

from invoicekit import Invoice
from invoicekit.signing import (SignatureMismatch, canonical_bytes, export_document, sign,
                                signed_export, verify)

from .conftest import FIXTURES


def test_canonical_bytes_ignore_key_order():
    assert canonical_bytes({"b": 1, "a": [1, 2]}) == canonical_bytes({"a": [1, 2], "b": 1})
    assert canonical_bytes({"a": "ü"}) == '{"a":"ü"}'.encode()


def test_signature_depends_on_content_with_explicit_key():
    key = bytes(range(32))
    assert sign({"a": 1}, key) != sign({"a": 2}, key)
    verify({"a": 1}, sign({"a": 1}, key), key)
    with pytest.raises(SignatureMismatch):
        verify({"a": 1}, sign({"a": 2}, key), key)


def test_export_document_carries_rounded_totals(mixed_invoice):
    document = export_document(mixed_invoice)
    assert document["gross_total"] == "468.56"
    assert document["lines"][0] == {"description": "Consulting hour", "quantity": "2.5",
                                    "unit_price": "120.00", "tax_rate": "0.19"}


def test_verifies_archived_export():
    archived = json.loads((FIXTURES / "archived_export.json").read_text(encoding="utf-8"))
    verify(archived["document"], archived["signature"])


def test_signed_export_roundtrip(mixed_invoice):
    exported = signed_export(mixed_invoice)
    verify(exported["document"], exported["signature"])
    assert exported == json.loads((FIXTURES / "mixed_export.json").read_text(encoding="utf-8"))


def test_signature_of_reduced_rate_invoice(reduced_rate_invoice):
    exported = signed_export(reduced_rate_invoice)
    assert exported["document"]["tax_total"] == "0.22"
    assert exported["signature"] == (FIXTURES / "reduced_rate.sig").read_text().strip()


def test_tampered_export_fails_verification():
    archived = json.loads((FIXTURES / "archived_export.json").read_text(encoding="utf-8"))
    archived["document"]["gross_total"] = "1.00"
    with pytest.raises(SignatureMismatch):
        verify(archived["document"], archived["signature"])


def test_invoice_without_lines_cannot_be_exported():
    with pytest.raises(ValueError):
        export_document(Invoice("INV-9", "Nobody", date(2026, 1, 1)))
