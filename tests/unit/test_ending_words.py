"""An agent's last message read as a person reads it: a claim, an ask of the human, or neither, in
the ways agents put each (tests/data/phrasings/endings.yaml)."""

from pathlib import Path

import pytest
import yaml

from impasse.analysis.normal_form import NStep
from impasse.analysis.verdicts import ABORTED, CLAIMED, ESCALATED, GAVE_UP, message_verdict

VERDICT = {"claimed": CLAIMED, "escalated": ESCALATED, "gave_up": GAVE_UP}
ENDINGS = yaml.safe_load((Path(__file__).resolve().parents[1] / "data" / "phrasings" / "endings.yaml")
                         .read_text(encoding="utf-8"))["endings"]


@pytest.mark.parametrize("sample", ENDINGS, ids=[f"{s['ending']}-{i:02d}" for i, s in enumerate(ENDINGS)])
def test_the_last_message_reads_as_a_person_reads_it(sample):
    verdict = message_verdict(NStep(1, sample["text"]), answered=True)
    assert verdict.kind == VERDICT[sample["ending"]], (verdict.how, verdict.line)


def test_waiting_on_its_own_running_work_is_a_step_it_never_took_waiting_on_the_human_is_not():
    own = "I will wait for the timer to fire or for the Git push task to complete."
    assert message_verdict(NStep(1, own), answered=True).kind == ABORTED
    human = "jq is not installed. I will wait for you to install it."
    assert message_verdict(NStep(1, human), answered=True).kind != ABORTED
