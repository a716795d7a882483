"""The annotator held to hand-labelled real trajectories (tests/data/real-corpus): each labelled file
is a known answer for `--card auto` — its first blocker's step and category, or no onset at all."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from impasse.analysis.agreement import agreement, judge, read_labels

CORPUS = Path(__file__).resolve().parents[1] / "data" / "real-corpus"
LABELS = CORPUS / "labels.jsonl"
# Files the annotator does not get right yet, each with why; a fix turns its test into an XPASS
# failure, and the entry must then go.
KNOWN_MISSES: dict[str, str] = {}


def labels() -> list[dict]:
    return read_labels(LABELS) if LABELS.exists() else []


@pytest.mark.skipif(not LABELS.exists(), reason=f"no labelled corpus at {LABELS}")
@pytest.mark.parametrize("label", labels(), ids=lambda label: label["file"])
def test_a_labelled_real_trajectory(label):
    if label["file"] in KNOWN_MISSES:
        pytest.xfail(KNOWN_MISSES[label["file"]])
    verdict = judge(label, CORPUS)
    assert verdict.problem == ""
    assert (verdict.found_t_star, verdict.found_category) == \
        (verdict.expected_t_star, label["blocker_category"] if verdict.positive else "none"), verdict.evidence


MINI = {"trajectory_format": "mini-swe-agent-1", "info": {"exit_status": "Submitted"}, "messages": [
    {"role": "system", "content": "You are a helpful assistant."},
    {"role": "user", "content": "Fix the bug."},
    {"role": "assistant", "content": "Look.\n```bash\nls\n```"},
    {"role": "user", "content": "<returncode>0</returncode>\n<output>\nsetup.py\n</output>"},
    {"role": "assistant", "content": "Test.\n```bash\npython -m pytest 2>&1 | tail -3\n```"},
    {"role": "user", "content": "<returncode>0</returncode>\n<output>\nE   ModuleNotFoundError: No module named "
                                "'numpy'\n1 error in 0.1s\n</output>"},
    {"role": "assistant", "content": "Done.\n```bash\necho COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT\n```"},
    {"role": "user", "content": "<returncode>0</returncode>\n<output>\n</output>"}]}


def test_agreement_scores_positives_negatives_and_categories(tmp_path: Path):
    (tmp_path / "blocked.traj.json").write_text(json.dumps(MINI))
    clean = {**MINI, "messages": MINI["messages"][:4]}
    (tmp_path / "clean.traj.json").write_text(json.dumps(clean))
    rows = [{"file": "blocked.traj.json", "blocker_category": "missing_dependency", "t_star": 1},
            {"file": "clean.traj.json", "blocker_category": "none", "t_star": None}]
    (tmp_path / "labels.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    summary = agreement(tmp_path / "labels.jsonl").summary()
    assert summary == {"files": 2, "positives": 1, "negatives": 1, "t_star_agreement": 1.0,
                       "category_agreement": 1.0, "false_onsets": 0.0, "unreadable": 0}
