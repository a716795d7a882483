import pytest

from relnotes.config import DEFAULT_SECTIONS, ConfigError, load_config, parse_config


def test_defaults_without_a_file(tmp_path):
    assert load_config(tmp_path).sections == DEFAULT_SECTIONS


def test_file_overrides_sections(tmp_path):
    (tmp_path / ".relnotes.yaml").write_text("sections:\n  feat: New\n  fix: Fixed\n"
                                            "include_other: true\ntag_prefix: release-\n")
    config = load_config(tmp_path)
    assert config.sections == {"feat": "New", "fix": "Fixed"}
    assert config.include_other and config.tag_prefix == "release-"


def test_bad_sections_are_rejected():
    with pytest.raises(ConfigError):
        parse_config("sections: [feat, fix]\n")
