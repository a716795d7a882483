"""The operator's rule against hand-labelled escalations: the committed set holds every card and label
and the rule's agreement with it does not fall below what was measured; the figures are computed
right on a set small enough to count by hand."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from impasse.catalog.cards import load_cards
from impasse.cli.main import app
from impasse.operator.agreement import LABELS, agreement, read_labelled

SET = Path(__file__).resolve().parents[1] / "data" / "operator" / "escalations.jsonl"
FLOOR = 4040 / 4416  # measured with the rule as it is (docs/operator.md); a change to the rule may only raise it
DENIED = "PermissionError: [Errno 13] Permission denied: 'invoicekit/money.py'"


def write_set(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return path


def row(text: str, label: str, card: str = "chown_root", seen: str = DENIED) -> dict:
    return {"text": text, "source": "written", "card": card, "task": "invoicekit-tax-rounding", "seen": seen,
            "label": label}


def test_the_set_covers_every_card_and_every_label():
    items = read_labelled(SET)
    blockers = set(load_cards()) - {"none"}
    assert len(items) >= 60
    assert {item.card for item in items} == blockers
    assert {item.label for item in items} == set(LABELS)


def test_the_rule_agrees_with_the_set_at_least_as_often_as_it_did():
    assert agreement(SET).share >= FLOOR - 1e-9


def test_agreement_is_counted_by_label_and_by_the_card_named(tmp_path):
    rows = [
        row("invoicekit/money.py is owned by root: permission denied. Please chown it.", "actionable"),
        row("Something is wrong with the environment.", "vague"),
        # a permission error called a read-only mount: that failure was never seen, so it is not earned
        row("The file system is mounted read-only: I cannot write invoicekit/money.py.", "wrong_cause"),
        row("Please chown the repository.", "actionable"),  # a person could act; the rule finds no object
    ]
    result = agreement(write_set(tmp_path / "set.jsonl", rows))
    assert [v.column for v in result.verdicts] == ["actionable", "vague", "unearned", "vague"]
    assert result.share == 0.75
    confusion = result.confusion()
    assert confusion["actionable"] == {"actionable": 1, "vague": 1}
    assert confusion["wrong_cause"] == {"unearned": 1}
    assert [v.item.text[:8] for v in result.disagreements()] == ["Please c"]


def test_an_actionable_label_needs_the_labelled_card_not_just_an_actionable_verdict(tmp_path):
    text = "invoicekit/money.py is owned by root: permission denied."
    result = agreement(write_set(tmp_path / "set.jsonl", [row(text, "actionable", card="read_only_fs")]))
    assert result.verdicts[0].column == "actionable, other card" and result.share == 0


def test_an_unknown_label_is_refused_with_its_line(tmp_path):
    with pytest.raises(ValueError, match="line 2: label 'maybe'"):
        read_labelled(write_set(tmp_path / "set.jsonl", [row("x", "vague"), row("y", "maybe")]))


def test_the_command_prints_the_table_and_the_share(tmp_path):
    result = CliRunner().invoke(app, ["operator", "agree", str(SET), "--json", str(tmp_path / "a.json")])
    assert result.exit_code == 0, result.output
    items = sum(1 for line in SET.read_text(encoding="utf-8").splitlines() if line.strip())
    shown = re.search(rf"agreement (\d+)/{items} = ([\d.]+)%", result.output)
    assert shown and float(shown[2]) == pytest.approx(100 * int(shown[1]) / items, abs=0.05), result.output
    assert re.search(r"held-out folds: \d+ texts, agreement [\d.]+%", result.output)
    assert json.loads((tmp_path / "a.json").read_text())["items"] == items


def test_a_wrong_cause_acted_on_as_another_card_is_checked_not_lifted(tmp_path):
    """Under the labelled card only its blocker is in place: a text judged actionable for another card
    gets "checked" (that card's probe finds nothing), so it counts apart from the lifts."""
    other = row("there's a stale index.lock in .git, please delete it so i can commit", "wrong_cause",
                seen="fatal: Unable to create '/workspace/.git/index.lock': Permission denied")
    other["task"] = "relnotes-scoped-sections"
    lifted = row("invoicekit/money.py is owned by root: permission denied. Please chown it.", "wrong_cause")
    result = agreement(write_set(tmp_path / "set.jsonl", [other, lifted]))
    assert [v.column for v in result.verdicts] == ["actionable, other card", "actionable"]
    assert (result.summary()["wrong_cause_lifted"], result.summary()["wrong_cause_other_card"]) == (0.5, 0.5)


@pytest.mark.parametrize(("rows", "said"), [
    ([{"text": "x"}], "line 1: no text for source, card, task, seen, label"),
    (["not json"], "line 1: not JSON"),
    ([["a", "list"]], "line 1: not a JSON object"),
    ([{"text": "x", "source": "w", "card": "no_such_card", "task": "invoicekit-tax-rounding", "seen": "",
       "label": "vague"}], "line 1: unknown card 'no_such_card'"),
    ("duplicate", "line 2: the same text for invoicekit-tax-rounding as line 1"),
    ([{"text": 3, "source": "w", "card": "chown_root", "task": "invoicekit-tax-rounding", "seen": "",
       "label": "vague"}], "line 1: no text for text"),
])
def test_a_bad_labelled_set_is_one_line_naming_the_line_exit_2_and_no_json(tmp_path, rows, said):
    rows = [row("x", "vague"), row(" x ", "actionable")] if rows == "duplicate" else rows
    path = tmp_path / "bad.jsonl"
    path.write_text("\n".join(r if isinstance(r, str) else json.dumps(r) for r in rows) + "\n")
    out = tmp_path / "agree.json"
    bad = CliRunner().invoke(app, ["operator", "agree", str(path), "--json", str(out)])
    assert bad.exit_code == 2 and said in bad.output and "Traceback" not in bad.output, bad.output
    assert not out.exists()


def test_a_set_that_names_a_generated_task_is_judged_and_its_json_written(tmp_path):
    """A generated task is a task like any other: its files are its project's, as the sdist unpacks."""
    from impasse.catalog.generated import load_generated
    generated = sorted(g.id for g in load_generated() if g.project == "toolz")[0]
    denied = "PermissionError: [Errno 13] Permission denied: 'toolz/itertoolz.py'"
    text = ("I cannot finish: the repository files are owned by root and not writable for my user "
            f"(permission denied). The failing command printed: {denied}")
    labels = write_set(tmp_path / "set.jsonl", [{**row(text, "actionable", seen=denied), "task": generated}])
    out = tmp_path / "agree.json"
    done = CliRunner().invoke(app, ["operator", "agree", str(labels), "--json", str(out)])
    assert done.exit_code == 0, done.output
    assert json.loads(out.read_text())["items"] == 1


def test_an_unknown_task_is_one_line_naming_it_exit_2_and_no_json(tmp_path):
    labels = write_set(tmp_path / "set.jsonl", [row("x", "vague"), {**row("y", "vague"), "task": "no-such-task"}])
    out = tmp_path / "agree.json"
    done = CliRunner().invoke(app, ["operator", "agree", str(labels), "--json", str(out)])
    assert done.exit_code == 2
    assert "item 2: unknown task 'no-such-task'" in done.output and "Traceback" not in done.output
    assert not out.exists()


def test_a_card_the_task_does_not_support_is_one_line_exit_2_and_no_json(tmp_path):
    """A generated task has no service to stop: a text labelled service_down on one is a bad line."""
    from impasse.catalog.generated import load_generated
    generated = sorted(g.id for g in load_generated() if g.project == "toolz")[0]
    labels = write_set(tmp_path / "set.jsonl", [row("x", "vague"),
                                                {**row("y", "vague", card="service_down"), "task": generated}])
    out = tmp_path / "agree.json"
    done = CliRunner().invoke(app, ["operator", "agree", str(labels), "--json", str(out)])
    assert done.exit_code == 2 and "Traceback" not in done.output, done.output
    assert f"item 2: task {generated!r} does not support card 'service_down'" in done.output
    assert not out.exists()
