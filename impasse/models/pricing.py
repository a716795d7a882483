"""What a model's tokens cost: the price table (`prices.yaml` beside this module, USD per million
tokens, each entry with the date it was checked and where), a user's table over it, and a run's
running cost. A cost that cannot be known — no price, or a token count the price needs that the
vendor did not report — is None, never 0: a table of costs with silent zeros would understate the
spend of exactly the models nobody priced."""

from __future__ import annotations

import datetime
import functools
import os
import re
from dataclasses import asdict, dataclass, field
from pathlib import Path

import yaml

PRICES_FILE = Path(__file__).with_name("prices.yaml")
PRICES_ENV = "IMPASSE_PRICES"  # a user's price file, as --prices FILE gives it
RATES = ("input", "output", "cache_read", "cache_write")
ENTRY_KEYS = (*RATES, "checked", "source")
SAME_AS_INPUT = "input"  # `cache_read: input`: billed as plain input, said explicitly
TOKEN_KEYS = ("prompt_tokens", "completion_tokens", "cached_tokens", "cache_write_tokens", "reasoning_tokens")
SNAPSHOT = re.compile(r"-(?:\d{8}|\d{4}-\d{2}-\d{2}|latest)$")  # claude-…-20250929, gpt-5-2025-08-07, …-latest
VENDOR_OF = {"openai-responses": "openai"}  # another API of the same vendor, at the same prices
PER_TOKEN = 1_000_000
SAFE_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml's when PyYAML has it: ~10× faster


class PriceTableError(ValueError):
    """A price file or entry that cannot be read; the message names the file and the entry."""


@dataclass(frozen=True)
class Price:
    """USD per million tokens. A cache rate of None is not known: tokens of that kind make the
    cost unknown (a price table that gives `input` for it says they are billed as input)."""

    input: float
    output: float
    cache_read: float | None = None
    cache_write: float | None = None
    checked: str = ""
    source: str = ""

    @property
    def free(self) -> bool:
        """Input and output at 0 and no cache rate above it (a local model priced at 0)."""
        return self.input == 0 and self.output == 0 and not (self.cache_read or self.cache_write)

    def to_dict(self) -> dict:
        return asdict(self)


# No model is called, so nothing is billed: a scripted run costs 0 by definition, not by estimate.
SCRIPTED = Price(0.0, 0.0, 0.0, 0.0, source="scripted policy: no model is called")


def parse_price(data, where: str) -> Price:
    """One entry (a table's, a user's, a matrix file's `price:`), checked: input and output are
    required, every rate a number ≥ 0 (a cache rate may be `input`), no key of another name."""
    if not isinstance(data, dict):
        raise PriceTableError(f"{where}: a price is a mapping of {', '.join(ENTRY_KEYS)}")
    unknown = sorted(set(data) - set(ENTRY_KEYS))
    if unknown:
        raise PriceTableError(f"{where}: unknown keys {unknown}; known: {', '.join(ENTRY_KEYS)}")
    missing = [rate for rate in ("input", "output") if data.get(rate) is None]
    if missing:
        raise PriceTableError(f"{where}: {' and '.join(missing)} missing (USD per million tokens)")
    rates = {rate: rate_of(data, rate, where) for rate in RATES}
    for rate in ("cache_read", "cache_write"):
        if data.get(rate) == SAME_AS_INPUT:
            rates[rate] = rates["input"]
    checked = data.get("checked", "")
    if isinstance(checked, datetime.date):
        checked = checked.isoformat()
    if not isinstance(checked, str) or not isinstance(data.get("source", ""), str):
        raise PriceTableError(f"{where}: checked and source are text (a date, a page)")
    return Price(**rates, checked=checked, source=data.get("source", ""))


def rate_of(data: dict, rate: str, where: str) -> float | None:
    value = data.get(rate)
    if value is None or (value == SAME_AS_INPUT and rate.startswith("cache_")):
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
        raise PriceTableError(f"{where}: {rate} is {value!r}, not a number of USD per million tokens ≥ 0")
    return float(value)


def read_prices(path: Path) -> dict[str, Price]:
    """A price file's entries, parsed once per version of the file: every run of a matrix asks for
    its model's price, and the repo's table takes ~20 ms to parse."""
    try:
        stamp = path.stat().st_mtime_ns
    except OSError as err:
        raise PriceTableError(f"{path}: cannot read the price file ({err.strerror or err})") from None
    return dict(parsed_prices(str(path), stamp))


@functools.lru_cache(maxsize=32)
def parsed_prices(name: str, stamp: int) -> dict[str, Price]:
    path = Path(name)
    try:
        data = yaml.load(path.read_text(), Loader=SAFE_LOADER)
    except OSError as err:
        raise PriceTableError(f"{path}: cannot read the price file ({err.strerror or err})") from None
    except yaml.YAMLError as err:
        raise PriceTableError(f"{path}: not YAML ({str(err).splitlines()[0]})") from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise PriceTableError(f"{path}: a price file maps model specs (openai:gpt-5, …) to prices")
    return {str(spec): parse_price(entry, f"{path}: {spec}") for spec, entry in data.items()}


def family_keys(spec: str) -> list[str]:
    """The keys a spec is looked up under, in order: itself, then its family without a snapshot's
    date or a `-latest` alias; `openai-responses:` as `openai:`."""
    kind, _, name = spec.partition(":")
    kind = VENDOR_OF.get(kind, kind)
    keys = [f"{kind}:{name}"]
    family = SNAPSHOT.sub("", name)
    if family != name:
        keys.append(f"{kind}:{family}")
    return keys


@dataclass(frozen=True)
class PriceTable:
    entries: dict[str, Price]

    @classmethod
    def load(cls, user_file: Path | None = None) -> PriceTable:
        """The repo's table, its entries replaced whole by those of a user file (`user_file`, else
        the file IMPASSE_PRICES names) under the same key."""
        entries = read_prices(PRICES_FILE)
        user_file = user_file or (Path(os.environ[PRICES_ENV]) if os.environ.get(PRICES_ENV) else None)
        if user_file is not None:
            entries |= read_prices(Path(user_file))
        return cls(entries)

    def price(self, spec: str, override: dict | None = None) -> Price | None:
        """The price of one model: a per-model override (a matrix file's `price:`) wins; a scripted
        policy is free; otherwise the table's, by exact key then family; None when none is known."""
        if override is not None:
            return parse_price(override, f"price of {spec}")
        if spec.partition(":")[0] == "scripted":
            return SCRIPTED
        return next((self.entries[key] for key in family_keys(spec) if key in self.entries), None)


def cost_of(usage: dict, price: Price | None) -> float | None:
    """USD for one request's usage (impasse's keys, models/turns.py): uncached input (prompt −
    cached − cache_write) at `input`, cached reads at `cache_read`, cache writes at `cache_write`,
    completion (reasoning included) at `output`. Unknown (None) without a price, without the
    prompt or completion count, with cached or written tokens and no rate for them, or with counts
    that do not add up. A cache count the vendor did not report is 0: it reported no cache use."""
    if price is None:
        return None
    if price.free:
        return 0.0
    prompt, completion = usage.get("prompt_tokens"), usage.get("completion_tokens")
    cached, written = usage.get("cached_tokens") or 0, usage.get("cache_write_tokens") or 0
    if prompt is None or completion is None or prompt - cached - written < 0:
        return None
    if (cached and price.cache_read is None) or (written and price.cache_write is None):
        return None
    total = ((prompt - cached - written) * price.input + completion * price.output
             + cached * (price.cache_read or 0) + written * (price.cache_write or 0))
    return total / PER_TOKEN


@dataclass
class CostMeter:
    """A run's running cost. `add` each answered request's usage (a request that failed was not
    billed and is not added); once one request's cost is unknown, the run's is unknown."""

    price: Price | None
    usd: float | None = 0.0
    tokens: dict = field(default_factory=dict)

    def add(self, usage: dict) -> float | None:
        """Add one request; returns its own cost (None: unknown)."""
        for key in TOKEN_KEYS:
            if usage.get(key) is not None:
                self.tokens[key] = self.tokens.get(key, 0) + usage[key]
        cost = cost_of(usage, self.price)
        self.usd = None if self.usd is None or cost is None else self.usd + cost
        return cost

    def to_dict(self) -> dict:
        """result.json's `cost`: USD (to the micro-dollar, None when unknown), the tokens summed
        over the run, and the price it was computed at."""
        return {"usd": None if self.usd is None else round(self.usd, 6), "tokens": dict(self.tokens),
                "price": self.price.to_dict() if self.price else None}
