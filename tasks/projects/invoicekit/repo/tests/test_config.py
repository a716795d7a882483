from decimal import Decimal

import pytest

from invoicekit.config import ConfigError, load_settings, parse_settings


def test_settings_file_is_read(settings):
    assert settings.seller == "Muster Software GmbH"
    assert settings.default_tax_rate == Decimal("0.19")


def test_invoice_numbers_are_zero_padded(settings):
    assert settings.invoice_number(42) == "INV-00042"


def test_missing_keys_are_named():
    with pytest.raises(ConfigError, match="vat_id"):
        parse_settings("seller: Someone\n")


def test_non_mapping_is_rejected():
    with pytest.raises(ConfigError):
        parse_settings("- a\n- b\n")


def test_missing_file_is_a_config_error(tmp_path):
    with pytest.raises(ConfigError, match="not found"):
        load_settings(tmp_path / "nope.yaml")
