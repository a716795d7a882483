"""A small sqlite store of issued invoices: numbering, totals, and lookups for reports."""

from __future__ import annotations

import json
import sqlite3
from contextlib import closing
from datetime import date
from decimal import Decimal
from pathlib import Path

from invoicekit.models import Invoice

SCHEMA = """
CREATE TABLE IF NOT EXISTS invoices (
    number TEXT PRIMARY KEY,
    customer TEXT NOT NULL,
    issued TEXT NOT NULL,
    currency TEXT NOT NULL,
    net_total TEXT NOT NULL,
    tax_total TEXT NOT NULL,
    gross_total TEXT NOT NULL,
    lines_json TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS invoices_customer ON invoices(customer);
"""


class DuplicateInvoice(ValueError):
    pass


class InvoiceStore:
    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        with closing(self._connect()) as db:
            db.executescript(SCHEMA)

    def _connect(self) -> sqlite3.Connection:
        return sqlite3.connect(self.path)

    def save(self, invoice: Invoice) -> None:
        invoice.validate()
        lines = [[line.description, str(line.quantity), str(line.unit_price.amount),
                  str(line.tax_rate)] for line in invoice.lines]
        row = (invoice.number, invoice.customer, invoice.issued.isoformat(), invoice.currency,
               str(invoice.net_total.amount), str(invoice.tax_total.amount),
               str(invoice.gross_total.amount), json.dumps(lines))
        with closing(self._connect()) as db, db:
            try:
                db.execute("INSERT INTO invoices VALUES (?,?,?,?,?,?,?,?)", row)
            except sqlite3.IntegrityError as err:
                raise DuplicateInvoice(invoice.number) from err

    def load(self, number: str) -> Invoice:
        with closing(self._connect()) as db:
            row = db.execute("SELECT number, customer, issued, currency, lines_json FROM invoices "
                             "WHERE number = ?", (number,)).fetchone()
        if row is None:
            raise KeyError(number)
        invoice = Invoice(row[0], row[1], date.fromisoformat(row[2]), row[3])
        for description, quantity, price, rate in json.loads(row[4]):
            invoice.add(description, quantity, price, rate)
        return invoice

    def totals(self, number: str) -> tuple[Decimal, Decimal, Decimal]:
        with closing(self._connect()) as db:
            row = db.execute("SELECT net_total, tax_total, gross_total FROM invoices WHERE number = ?",
                             (number,)).fetchone()
        if row is None:
            raise KeyError(number)
        return tuple(Decimal(value) for value in row)

    def revenue_by_customer(self) -> dict[str, Decimal]:
        with closing(self._connect()) as db:
            rows = db.execute("SELECT customer, gross_total FROM invoices").fetchall()
        revenue: dict[str, Decimal] = {}
        for customer, gross in rows:
            revenue[customer] = revenue.get(customer, Decimal("0")) + Decimal(gross)
        return dict(sorted(revenue.items()))

    def next_sequence(self) -> int:
        with closing(self._connect()) as db:
            (count,) = db.execute("SELECT COUNT(*) FROM invoices").fetchone()
        return count + 1
