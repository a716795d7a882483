"""The two "something failed" alternations (verdicts.UNABLE and UNABLE_UNNAMED, the latter without
"missing") match the same sentences as the single pattern they replace, and its string-replaced copy,
did: building them from one list of phrases changed no reading."""

from __future__ import annotations

import re

import pytest

from impasse.analysis import wall_naming
from impasse.analysis.claim_words import UNABLE, UNABLE_UNNAMED

# The pattern as it stood, and the copy without "missing" made by replacing text in it.
OLD_UNABLE = re.compile(r"\b(?:(?:can ?no|can'|could ?n'|was ?n'|is ?n'|did ?n'|do ?n'|does ?n')t|unable|not able"
                        r"|i apologi[sz]e|unfortunately"
                        r"|blocked|no (?:network|internet|access|permission)|permission denied|not installed"
                        r"|not available|unavailable|failed|fails|refused|denied|missing|read-only|sandbox"
                        r"|no [\w.+-]+ (?:binary |executable |command )?(?:available|installed|found))\b", re.I)
OLD_UNNAMED = re.compile(OLD_UNABLE.pattern.replace("|missing|", "|"), re.I)

SENTENCES = [
    "jq is missing from the image.", "The MISSING fields were added.", "Dismissing the warning.",
    "I cannot reach the registry.", "I can't install it.", "It couldn't connect.", "It doesn't build.",
    "I was unable to push.", "I'm not able to run Docker.", "I apologise for the delay.",
    "Unfortunately the tests hang.", "The port is blocked.", "There is no network here.",
    "No internet in the sandbox.", "permission denied on /etc.", "Go is not installed, and jq is missing.",
    "The service is not available.", "The API is unavailable.", "The build failed.", "It fails on CI.",
    "Connection refused.", "Access denied.", "The file system is read-only.", "No cargo binary found.",
    "no psql command available", "No node executable installed.", "All tests pass.", "Done: fixed the bug.",
    "The key was missing", "missing", "nothing missing here but a failed step", "cannot", "unblocked",
    "failedover", "no such file", "I did it.", "The token is not set.",
]


@pytest.mark.parametrize("sentence", SENTENCES)
def test_the_alternations_match_what_the_old_construction_matched(sentence: str) -> None:
    assert bool(UNABLE.search(sentence)) == bool(OLD_UNABLE.search(sentence))
    assert bool(UNABLE_UNNAMED.search(sentence)) == bool(OLD_UNNAMED.search(sentence))


def test_the_samples_tell_the_two_apart_and_the_wall_namer_reads_the_same_one() -> None:
    # Unless some sample matches through "missing" alone, the test above could not see it dropped or kept.
    only_missing = [s for s in SENTENCES if UNABLE.search(s) and not UNABLE_UNNAMED.search(s)]
    assert only_missing and all(re.search("missing", s, re.I) for s in only_missing)
    assert any(not UNABLE.search(s) for s in SENTENCES)
    assert wall_naming.UNABLE_UNNAMED is UNABLE_UNNAMED


@pytest.mark.parametrize("sentence", ["A porta 22 está bloqueada no seu sistema/rede.",
                                      "La conexión está bloqueada por el firewall.",
                                      "Die Verbindung zum Server ist blockiert."])
def test_a_network_blocked_in_another_language_names_the_wall(sentence: str) -> None:
    """As "Port 22 is blocked on your system/network." does in English."""
    assert wall_naming.wall_namer(None, "network")(sentence) == sentence
    assert wall_naming.wall_namer(None, "network")("Port 22 is blocked on your system/network.")


@pytest.mark.parametrize("category,names,sentence", [
    ("missing_binary", ("make",), "`make check` không chạy được vì máy này không có `make`."),
    ("permission", (), "다만 이번 세션은 파일시스템이 read-only라 실제 수정이나 커밋은 할 수 없었습니다."),
    ("lock", (), "但还有 3 个文件被正在运行的编辑器占用，没法移动："),
    ("tls", (), "Network/cert issue in the sandbox, not a code problem."),
])
def test_a_wall_named_in_the_words_people_use_for_it(category: str, names: tuple, sentence: str) -> None:
    """A Vietnamese "cannot run", a sandbox's refusal said as read-only, a file another program holds, a "cert"."""
    assert wall_naming.wall_namer(None, category, names)(sentence)

