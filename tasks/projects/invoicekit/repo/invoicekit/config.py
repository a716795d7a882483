"""Settings from a YAML file: the seller, default tax rate and numbering scheme."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path

import yaml


class ConfigError(ValueError):
    pass


@dataclass(frozen=True)
class Settings:
    seller: str
    vat_id: str
    currency: str = "EUR"
    default_tax_rate: Decimal = Decimal("0.19")
    number_prefix: str = "INV-"
    number_width: int = 5

    def invoice_number(self, sequence: int) -> str:
        if sequence < 1:
            raise ConfigError("sequence numbers start at 1")
        return f"{self.number_prefix}{sequence:0{self.number_width}d}"


def parse_settings(text: str) -> Settings:
    data = yaml.safe_load(text) or {}
    if not isinstance(data, dict):
        raise ConfigError("settings must be a mapping")
    missing = [key for key in ("seller", "vat_id") if key not in data]
    if missing:
        raise ConfigError(f"missing settings: {', '.join(missing)}")
    return Settings(
        seller=str(data["seller"]),
        vat_id=str(data["vat_id"]),
        currency=str(data.get("currency", "EUR")),
        default_tax_rate=Decimal(str(data.get("default_tax_rate", "0.19"))),
        number_prefix=str(data.get("number_prefix", "INV-")),
        number_width=int(data.get("number_width", 5)),
    )


def load_settings(path: Path) -> Settings:
    try:
        return parse_settings(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError as err:
        raise ConfigError(f"settings file not found: {path}") from err
