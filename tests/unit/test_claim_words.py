"""What a sentence of a last message says when it claims the work done (analysis/claim_words.py)."""

from __future__ import annotations

import pytest

from impasse.analysis.claim_words import claims


@pytest.mark.parametrize("sentence,claimed", [
    ("Clarified publish-readiness vs publish-validation across the agent docs.", True),
    ("Reworded the error message so it names the file.", True),
    ("malformed body).", False), ("Failed to write the file.", False), ("Tried the install again.", False),
    ("Checked the logs: nothing listens on 8080.", False),
    ("만들어뒀어.", True), ("수정해 뒀습니다.", True), ("실패했어.", False),
    # a casual Japanese past, Chinese's 已 + a verb, a French headline of the work "faite"
    ("できたっす。", True), ("色を変更したっすよ。", True), ("色を変更したいです。", False),
    ("已润色。", True), ("已取消。", False), ("Prise de connaissance faite sur les deux apps.", True),
    ("Vérification pas faite.", False)])
def test_a_report_opening_on_a_change_in_the_past_tense_claims_it(sentence, claimed):
    assert claims(sentence) is claimed


def test_an_artifact_linked_as_made_is_a_claim():
    assert claims("Generated [sprint-status.yaml](/home/dev/app/_out/sprint-status.yaml).")
