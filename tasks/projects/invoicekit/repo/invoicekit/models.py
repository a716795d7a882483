"""Invoices and their lines. Tax is computed per rate over the net sum of the lines that carry it,
then rounded once per rate (the rule the tax office asks for), never per line."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from datetime import date
from decimal import Decimal

from invoicekit.money import Money, total


class InvoiceError(ValueError):
    pass


@dataclass(frozen=True)
class LineItem:
    description: str
    quantity: Decimal
    unit_price: Money
    tax_rate: Decimal = Decimal("0.19")

    def __post_init__(self) -> None:
        if not isinstance(self.quantity, Decimal):
            object.__setattr__(self, "quantity", Decimal(str(self.quantity)))
        if not isinstance(self.tax_rate, Decimal):
            object.__setattr__(self, "tax_rate", Decimal(str(self.tax_rate)))
        if self.quantity <= 0:
            raise InvoiceError(f"quantity must be positive: {self.description}")
        if not Decimal("0") <= self.tax_rate < Decimal("1"):
            raise InvoiceError(f"tax rate out of range: {self.tax_rate}")

    @property
    def net(self) -> Money:
        return self.unit_price.times(self.quantity)


@dataclass
class Invoice:
    number: str
    customer: str
    issued: date
    currency: str = "EUR"
    lines: list[LineItem] = field(default_factory=list)
    discount_percent: Decimal = Decimal("0")

    def add(self, description: str, quantity, unit_price: str, tax_rate="0.19") -> LineItem:
        item = LineItem(description, Decimal(str(quantity)), Money.of(unit_price, self.currency),
                        Decimal(str(tax_rate)))
        self.lines.append(item)
        return item

    def _discount_factor(self) -> Decimal:
        return (Decimal("100") - Decimal(str(self.discount_percent))) / Decimal("100")

    def net_by_rate(self) -> dict[Decimal, Money]:
        groups: dict[Decimal, list[Money]] = defaultdict(list)
        for line in self.lines:
            groups[line.tax_rate].append(line.net.times(self._discount_factor()))
        return {rate: total(nets, self.currency) for rate, nets in sorted(groups.items())}

    def tax_by_rate(self) -> dict[Decimal, Money]:
        return {rate: net.times(rate).rounded() for rate, net in self.net_by_rate().items()}

    @property
    def net_total(self) -> Money:
        return total([net.rounded() for net in self.net_by_rate().values()], self.currency)

    @property
    def tax_total(self) -> Money:
        return total(list(self.tax_by_rate().values()), self.currency)

    @property
    def gross_total(self) -> Money:
        return self.net_total + self.tax_total

    def validate(self) -> None:
        if not self.lines:
            raise InvoiceError(f"invoice {self.number} has no lines")
        if not self.number.strip():
            raise InvoiceError("invoice number is empty")
        for line in self.lines:
            if line.unit_price.currency != self.currency:
                raise InvoiceError(f"line {line.description!r} is not in {self.currency}")
