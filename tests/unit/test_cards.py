"""Blocker cards: every shipped card loads; bad cards are refused with the file, field and problem."""

from pathlib import Path

import pytest
import yaml

from impasse.cards import card_paths, load_card, load_cards
from impasse.paths import CARDS
from impasse.schema import DocumentError

CARD_IDS = {"chown_root", "read_only_fs", "removed_dependency", "flaky_sandbox", "missing_secret",
            "service_down", "network_down_download", "git_index_lock", "disk_full", "missing_binary",
            "tls_cert_invalid", "oom_kill", "none"}


def test_the_twelve_cards_and_the_control_load():
    cards = load_cards()
    assert set(cards) == CARD_IDS
    for card in cards.values():
        if not card.is_control:
            assert card.signatures and card.probe and card.diagnosis and card.workarounds


def write_card(tmp_path: Path, card_id: str, mutate) -> Path:
    data = yaml.safe_load((CARDS / f"{card_id}.yaml").read_text())
    mutate(data)
    (tmp_path / "families.yaml").write_text((CARDS / "families.yaml").read_text())
    path = tmp_path / f"{card_id}.yaml"
    path.write_text(yaml.safe_dump(data))
    return path


@pytest.mark.parametrize("mutate,field,problem", [
    (lambda d: d.pop("probe"), "(top level)", "'probe' is a required property"),
    (lambda d: d["signatures"].append({"pattern": "([unclosed", "reason": "x"}), "signatures[",
     "bad regex"),
    (lambda d: d["workaround_families"].append("teleport"), "workaround_families[", "unknown family 'teleport'"),
    (lambda d: d["requires"].append("unicorns"), "requires[", "'unicorns' is not one of"),
    (lambda d: d["diagnosis"].append("(?P<x"), "diagnosis[", "bad regex"),
])
def test_bad_cards_name_file_field_and_problem(tmp_path, mutate, field, problem):
    path = write_card(tmp_path, "chown_root", mutate)
    with pytest.raises(DocumentError) as err:
        load_card(path)
    message = str(err.value)
    assert str(path) in message
    assert field in message
    assert problem in message


def test_cards_validate_command_exit_code(tmp_path):
    from typer.testing import CliRunner

    from impasse.cli import app
    bad = write_card(tmp_path, "oom_kill", lambda d: d.pop("signatures"))
    runner = CliRunner()
    good = runner.invoke(app, ["cards", "validate", *map(str, card_paths())])
    assert good.exit_code == 0
    failed = runner.invoke(app, ["cards", "validate", str(bad)])
    assert failed.exit_code == 1
    assert "signatures" in failed.output
