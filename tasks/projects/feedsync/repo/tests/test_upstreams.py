"""Against the real upstreams: the rates file on the data host, and the pricing team's HTTPS API."""

from decimal import Decimal

from feedsync.pricing import load_overrides
from feedsync.rates import download_rates, load_rates, to_eur


def test_rates_are_downloaded_once_into_the_cache(tmp_path):
    target = download_rates(cache_dir=tmp_path)
    assert target == tmp_path / "rates.csv"
    assert target.read_text().startswith("currency,per_eur\n")
    first = target.stat().st_mtime_ns
    assert download_rates(cache_dir=tmp_path).stat().st_mtime_ns == first


def test_published_rates_convert_dollars(tmp_path):
    rates = load_rates(cache_dir=tmp_path)
    assert rates["USD"] == Decimal("1.0800")
    assert round(to_eur(Decimal("108.00"), "USD", rates), 2) == Decimal("100.00")


def test_overrides_come_over_verified_https():
    overrides = load_overrides()
    assert overrides["SKU-1003"] == Decimal("7.49")
    assert len(overrides) == 3
