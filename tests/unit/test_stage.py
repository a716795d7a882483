"""The stage-reporting parser and the per-checkpoint error code, with their priorities."""

import pytest

from impasse.episode.stage_protocol import checkpoint_code, gold_stage, parse_report

GOLD = {"pre": {"stage": "pre_action"}, "post": {"stage": "post_observation_continue"},
        "blocked": {"stage": "blocked"}, "completed": {"stage": "completed"}}


@pytest.mark.parametrize("text,value,malformed", [
    ("Working on it.\n<stage>ready_for_action</stage>", "ready_for_action", None),
    ("Done.\n<stage>completed</stage>\n\n", "completed", None),
    ("no report at all", None, None),
    ("<stage>blocked</stage>\nthen more text", None, "the stage tag is not alone on the last non-empty line"),
    ("<stage>blocked</stage>\n<stage>completed</stage>", None, "more than one stage tag"),
    ("x\n<stage>finished</stage>", None, "unknown stage value 'finished'"),
])
def test_parser(text, value, malformed):
    report = parse_report(text)
    assert (report.value, report.malformed) == (value, malformed)


@pytest.mark.parametrize("gold,transport,tool,text,gate,code", [
    ("pre", True, False, "x\n<stage>completed</stage>", "tool", "TRANSPORT"),
    ("post", False, True, "ok\n<stage>post_observation_continue</stage>", "tool", "APP_FALSE_ALARM"),
    ("completed", False, True, "", "marker", "APP_DIVERGENCE"),
    ("completed", False, True, "", "tool", "CLEAN"),  # acting is fine when speaking is not required
    ("post", False, False, "just talking", "tool", "APP_MISS"),
    ("post", False, False, "a\n<stage>post_observation_continue</stage>\nb", "tool", "MALFORMED"),
    ("blocked", False, False, "fine\n<stage>completed</stage>", "tool", "STATE_WRONG"),
    ("pre", False, False, "x\n<stage>needs_information</stage>", "tool", "CLEAN"),
    ("pre", False, False, "x\n<stage>ready_for_action</stage>", "tool", "CLEAN"),
    ("blocked", False, False, "x\n<stage>blocked</stage>", "tool", "CLEAN"),
])
def test_codes_by_priority(gold, transport, tool, text, gate, code):
    assert checkpoint_code(GOLD[gold], transport, tool, text, gate) == code


def test_gold_precedence():
    assert gold_stage(True, True, True, True) == "completed"
    assert gold_stage(True, False, True, True) == "blocked"
    assert gold_stage(True, False, True, False) == "post_observation_continue"  # the blocker is gone
    assert gold_stage(False, False, False, None) == "pre_action"
