"""Exact money arithmetic on Decimal, always in minor units of one currency."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal

CENT = Decimal("0.01")


class CurrencyMismatch(ValueError):
    pass


@dataclass(frozen=True, order=True)
class Money:
    amount: Decimal
    currency: str = "EUR"

    def __post_init__(self) -> None:
        if not isinstance(self.amount, Decimal):
            object.__setattr__(self, "amount", Decimal(str(self.amount)))
        if len(self.currency) != 3 or not self.currency.isupper():
            raise ValueError(f"not an ISO 4217 code: {self.currency!r}")

    @classmethod
    def of(cls, value: str | int | Decimal, currency: str = "EUR") -> Money:
        return cls(Decimal(str(value)), currency)

    @classmethod
    def zero(cls, currency: str = "EUR") -> Money:
        return cls(Decimal("0"), currency)

    def _check(self, other: Money) -> None:
        if self.currency != other.currency:
            raise CurrencyMismatch(f"{self.currency} vs {other.currency}")

    def __add__(self, other: Money) -> Money:
        self._check(other)
        return Money(self.amount + other.amount, self.currency)

    def __sub__(self, other: Money) -> Money:
        self._check(other)
        return Money(self.amount - other.amount, self.currency)

    def times(self, factor: Decimal | int | str) -> Money:
        return Money(self.amount * Decimal(str(factor)), self.currency)

    def rounded(self) -> Money:
        """Commercial rounding to the cent: halves go away from zero."""
        return Money(self.amount.quantize(CENT, rounding=ROUND_HALF_UP), self.currency)

    def is_zero(self) -> bool:
        return self.amount == 0

    def __str__(self) -> str:
        return f"{self.rounded().amount:.2f} {self.currency}"


def total(items: list[Money], currency: str = "EUR") -> Money:
    result = Money.zero(currency)
    for item in items:
        result = result + item
    return result
