"""What a sentence of a last message says when it claims the work done (analysis/claim_words.py)."""

from __future__ import annotations

import pytest

from impasse.analysis.claim_words import UNABLE, UNABLE_IN_OTHER_LANGUAGES, claims


@pytest.mark.parametrize("sentence,claimed", [
    ("Clarified publish-readiness vs publish-validation across the agent docs.", True),
    ("Reworded the error message so it names the file.", True),
    ("malformed body).", False), ("Failed to write the file.", False), ("Tried the install again.", False),
    ("Checked the logs: nothing listens on 8080.", False),
    ("만들어뒀어.", True), ("수정해 뒀습니다.", True), ("실패했어.", False),
    # a casual Japanese past, Chinese's 已 + a verb, a French headline of the work "faite"
    ("できたっす。", True), ("色を変更したっすよ。", True), ("色を変更したいです。", False),
    ("已润色。", True), ("已取消。", False), ("Prise de connaissance faite sur les deux apps.", True),
    ("Vérification pas faite.", False),
    # a check said to pass still, after the change
    ("The test still passes, and now it's robust against nil configs.", True), ("Tests still pass.", True)])
def test_a_report_opening_on_a_change_in_the_past_tense_claims_it(sentence, claimed):
    assert claims(sentence) is claimed


def test_an_artifact_linked_as_made_is_a_claim():
    assert claims("Generated [sprint-status.yaml](/home/dev/app/_out/sprint-status.yaml).")


@pytest.mark.parametrize("sentence", [
    "Due to file system permission restrictions, I will show the plan here instead.",
    "由于文件系统权限限制，我将直接在对话中展示项目管理流程。", "サンドボックスの制限のため、ここに直接書きます。",
    "네트워크 제한 때문에 여기서 보여드립니다."])
def test_the_environments_restriction_given_as_why_says_something_failed(sentence):
    """The wall given as the reason the agent turns to another way: the telling reads it as saying so."""
    assert UNABLE.search(sentence) or UNABLE_IN_OTHER_LANGUAGES.search(sentence)
    assert not claims(sentence)


def test_a_restriction_the_work_adds_is_no_wall_given():
    assert not UNABLE.search("Added rate limiting to the login endpoint.")


@pytest.mark.parametrize("sentence", [
    "I need permission to edit the files.", "Parece que preciso de permissão para editar os arquivos.",
    "需要你的授权才能继续。"])
def test_the_walls_remedy_stated_as_a_need_says_the_agent_is_blocked(sentence):
    assert UNABLE.search(sentence) or UNABLE_IN_OTHER_LANGUAGES.search(sentence)
