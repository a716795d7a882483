"""Products and feed entries."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal

CENT = Decimal("0.01")


class BadRecord(ValueError):
    pass


@dataclass(frozen=True)
class Product:
    sku: str
    title: str
    price: Decimal
    currency: str
    active: bool = True

    @classmethod
    def from_record(cls, record: dict) -> Product:
        try:
            sku = str(record["sku"]).strip()
            price = Decimal(str(record["price"]))
            currency = str(record["currency"]).upper()
        except (KeyError, ArithmeticError) as err:
            raise BadRecord(f"bad product record {record!r}: {err}") from err
        if not sku:
            raise BadRecord("product without sku")
        if price < 0:
            raise BadRecord(f"negative price for {sku}")
        return cls(sku, str(record.get("title", sku)), price, currency,
                   bool(record.get("active", True)))


@dataclass(frozen=True)
class FeedEntry:
    sku: str
    title: str
    price_eur: Decimal
    overridden: bool = False

    def as_row(self) -> list[str]:
        return [self.sku, self.title, f"{self.price_eur.quantize(CENT, ROUND_HALF_UP)}",
                "override" if self.overridden else "catalog"]
