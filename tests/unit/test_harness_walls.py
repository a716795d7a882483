"""An agent's own words for a wall live in its dialect (impasse/dialects/), once: the card reads them as
its signatures, an agent's line is an onset of that card, and a changed wording changes the card's hash."""

from __future__ import annotations

import re

import pytest
import yaml

from impasse.analysis.compiled_card import compile_card
from impasse.analysis.failure_lines import is_failure_line
from impasse.analysis.normal_form import NStep, NTrajectory, Obs
from impasse.analysis.onsets import signature_match
from impasse.catalog import cards
from impasse.catalog.cards import get_card, load_cards
from impasse.dialects.harness_walls import DIALECTS, wall_files, walls_of

# A line each harness printed for its wall, one per wall, in the order its dialect lists them.
SAMPLES = {
    "claude_code": [
        "Permission to use Bash with command rm -rf build has been denied.",
        "Claude requested permissions to write to /Users/dev/app/notes.yaml, but you haven't granted it yet.",
        "This command requires approval",
        "cd to '/etc' was blocked. For security, Claude Code may only change directories to the allowed "
        "working directories for this session",
        "Web fetch error: url_not_accessible",
        "Unable to verify if domain docs.python.org is safe to fetch. This may be due to network restrictions "
        "or enterprise security policies blocking claude.ai.",
    ],
    "codex": [
        "CreateProcess { message: \"Codex(Sandbox(Denied { output: ExecToolCallOutput { exit_code: 1 } }))\" }",
        "failed in sandbox: error running landlock: Sandbox(LandlockRestrict)",
        "execution error: Io(Custom { kind: Other, error: \"windows sandbox: CreateProcessWithLogonW failed: 1056\" })",
        "`git push origin main` rejected: blocked by policy",
    ],
    "gemini_cli": ['Tool "run_shell_command" not found in registry. Tools must use the exact names that are '
                   'registered.'],
    "pi": ["Path escapes sandbox root (~/.agent/workspace): /usr/local/lib/node_modules/agent/SKILL.md"],
}
CASES = [(dialect, wall, SAMPLES[dialect.__name__.rsplit(".", 1)[-1]][i])
         for dialect in DIALECTS for i, wall in enumerate(dialect.WALLS)]


def foreign_onset(card_id: str, output: str):
    return foreign_onset_at(card_id, output, exit_code=1)


def foreign_onset_at(card_id: str, output: str, exit_code: int):
    obs = Obs(output, exit_code)
    step = NStep(1, "", observations=[obs])
    trajectory = NTrajectory("r", "foreign", "-", "m", "c", "t", [step], "unknown")
    return signature_match(compile_card(get_card(card_id), None), obs, step, trajectory, set())


def test_every_dialect_has_a_sample_for_each_of_its_walls():
    for dialect in DIALECTS:
        assert len(SAMPLES[dialect.__name__.rsplit(".", 1)[-1]]) == len(dialect.WALLS), dialect.__name__


@pytest.mark.parametrize("dialect,wall,sample", CASES, ids=[f"{d.__name__.rsplit('.', 1)[-1]}-{i}"
                                                            for i, (d, _, _) in enumerate(CASES)])
def test_an_agents_own_line_is_an_onset_of_the_card_its_wall_names(dialect, wall, sample):
    assert re.search(wall.pattern, sample, re.M)
    assert foreign_onset(wall.card, sample) is not None


def test_a_card_reads_its_walls_after_its_own_signatures_and_its_yaml_does_not_repeat_them():
    for card in load_cards().values():
        own = yaml.safe_load(card.path.read_text())["signatures"]
        assert [s.pattern for s in card.signatures] == [s["pattern"] for s in own] + \
            [w.pattern for w in walls_of(card.id)]
        assert not {s["pattern"] for s in own} & {w.pattern for w in walls_of(card.id)}, card.id


def test_every_wall_names_a_card():
    assert {wall.card for dialect in DIALECTS for wall in dialect.WALLS} <= set(load_cards())


def test_a_changed_wording_in_a_dialect_changes_the_cards_hash(tmp_path, monkeypatch):
    assert {f.name for f in wall_files("chown_root")} >= {"codex.py", "claude_code.py"}
    dialect = tmp_path / "codex.py"
    dialect.write_text("WALLS = ()\n")
    monkeypatch.setattr(cards, "wall_files", lambda card_id: (dialect,))
    card = get_card("chown_root")
    before = card.content_hash
    dialect.write_text("WALLS = ('a new wording',)\n")
    assert card.content_hash != before


@pytest.mark.parametrize("dialect,wall,sample", CASES, ids=[f"{d.__name__.rsplit('.', 1)[-1]}-{i}"
                                                            for i, (d, _, _) in enumerate(CASES)])
def test_a_harness_refusal_says_the_call_failed_whatever_status_was_recorded(dialect, wall, sample):
    assert is_failure_line(sample)
    assert foreign_onset_at(wall.card, sample, exit_code=0) is not None
