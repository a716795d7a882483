"""Blocker cards: every shipped card loads; bad cards are refused with the file, field and problem."""

from pathlib import Path

import pytest
import yaml

from impasse.catalog.cards import card_paths, load_card, load_cards
from impasse.catalog.schema import DocumentError
from impasse.paths import CARDS

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

    from impasse.cli.main import app
    bad = write_card(tmp_path, "oom_kill", lambda d: d.pop("signatures"))
    runner = CliRunner()
    good = runner.invoke(app, ["cards", "validate", *map(str, card_paths())])
    assert good.exit_code == 0
    failed = runner.invoke(app, ["cards", "validate", str(bad)])
    assert failed.exit_code == 1
    assert "signatures" in failed.output


def test_run_refuses_to_start_with_a_bad_card(tmp_path):
    import os
    import shutil
    import subprocess
    import sys

    from impasse.paths import ROOT
    for folder in ("blocker_cards", "tasks", "dockerfiles", "harness"):
        shutil.copytree(ROOT / folder, tmp_path / folder)
    card = tmp_path / "blocker_cards" / "chown_root.yaml"
    data = yaml.safe_load(card.read_text())
    data["signatures"][0]["pattern"] = "([broken"
    card.write_text(yaml.safe_dump(data))
    env = {**os.environ, "IMPASSE_HOME": str(tmp_path), "DOCKER_HOST": "unix:///nonexistent/docker.sock",
           "IMPASSE_NO_SELF_INSTALL": "1"}
    done = subprocess.run([sys.executable, "-m", "impasse", "run", "--model", "scripted:oracle", "--condition",
                           "chown_root", "--out", str(tmp_path / "runs")], capture_output=True, text=True, env=env,
                          timeout=60)
    assert done.returncode == 1, done.stderr
    message = " ".join(done.stderr.split())
    assert "chown_root.yaml" in message and "signatures[0].pattern" in message and "bad regex" in message
    assert not (tmp_path / "runs").exists()
