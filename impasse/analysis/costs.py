"""What runs cost, as each run's result.json recorded it (`cost`: models.pricing.CostMeter.to_dict()),
per run and per group, and how it is shown. A run that recorded no cost (a foreign run, one written
before costs were kept) shows `–`; a cost that is not known shows `unknown`; neither is ever a 0."""

from __future__ import annotations

from impasse.analysis.metrics import Annotation
from impasse.models.pricing import TOKEN_KEYS

COST_KEYS = ("cost_usd", *TOKEN_KEYS)  # the per-run columns of --json / --csv beside the metrics
UNKNOWN = "unknown"
NOT_RECORDED = "–"


def cost_columns(cost: dict | None) -> dict:
    """A run's cost columns: `cost_usd` (null when unknown or not recorded) and the tokens it used
    (null when not reported)."""
    tokens = (cost or {}).get("tokens") or {}
    return {"cost_usd": (cost or {}).get("usd"), **{key: tokens.get(key) for key in TOKEN_KEYS}}


def group_cost(runs: list[Annotation]) -> dict | None:
    """A group's spend: the total and the mean per run, both None as soon as one run's cost is not
    known (a run of the group that recorded none counts as not known); None when no run of the group
    recorded a cost at all (foreign runs)."""
    recorded = [r.cost for r in runs if r.cost is not None]
    if not recorded:
        return None
    known = [c["usd"] for c in recorded if isinstance(c.get("usd"), int | float)]
    unknown = len(runs) - len(known)
    total = None if unknown else round(sum(known), 6)
    tokens: dict[str, int] = {}
    for cost in recorded:
        for key, value in (cost.get("tokens") or {}).items():
            if isinstance(value, int):
                tokens[key] = tokens.get(key, 0) + value
    return {"usd_total": total, "usd_mean_per_run": None if total is None else round(total / len(runs), 6),
            "runs": len(runs), "runs_unknown": unknown, "tokens": tokens}


def usd(value: float) -> str:
    """Dollars to the cent, and below a dollar to the hundredth of a cent (a cheap model's run)."""
    return f"${value:,.2f}" if value >= 1 else f"${value:.4f}"


def run_cost_text(cost: dict | None) -> str:
    if cost is None:
        return NOT_RECORDED
    return UNKNOWN if cost.get("usd") is None else usd(cost["usd"])


def cost_texts(cost: dict | None) -> tuple[str, str]:
    """(total, mean per run) as shown in the tables and the report."""
    if cost is None:
        return NOT_RECORDED, NOT_RECORDED
    if cost["usd_total"] is None:
        return f"{UNKNOWN} ({cost['runs_unknown']} of {cost['runs']} runs)", UNKNOWN
    return usd(cost["usd_total"]), usd(cost["usd_mean_per_run"])
