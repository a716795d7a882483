"""The annotator held to hand-labelled real trajectories: each labelled file is a known answer for
`--card auto` — its first blocker's step and category, or no onset at all with every card tried.
Two corpora: tests/data/real-corpus (committed here, empty so far) and the development corpus in
../shared/real-trajectories/dev (read from there, never copied; skipped where it is absent). On the
development corpus the importers' step boundaries are checked on their own too: each label's
evidence is in the observation of its step and, for t*, in no earlier one (LABELING.md §1–6)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from impasse.analysis.agreement import agreement, judge, read_labels
from impasse.analysis.importers import load_foreign

CORPUS = Path(__file__).resolve().parents[1] / "data" / "real-corpus"
LABELS = CORPUS / "labels.jsonl"
DEV = Path(__file__).resolve().parents[3] / "shared" / "real-trajectories" / "dev"
DEV_LABELS = DEV / "labels.jsonl"
NO_DEV = f"no development corpus at {DEV} (../shared/real-trajectories/dev)"
# Files the annotator does not get right yet, each with why; a fix turns its test into an XPASS
# failure, and the entry must then go.
KNOWN_MISSES: dict[str, str] = {}


def labels(path: Path = LABELS) -> list[dict]:
    return read_labels(path) if path.exists() else []


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
                       "category_agreement": 1.0, "false_onsets": 0.0, "ending_agreement": None,
                       "told_agreement": None, "unreadable": 0}


def test_endings_and_telling_are_held_to_labels_and_counted_by_fold(tmp_path: Path):
    """A labelled ending and `told_human` are judged beside t*; a provenance file beside the labels
    puts each file in its repository's fold (carol/three is held out, alice/one is not)."""
    sessions = tmp_path / "sessions"
    sessions.mkdir()
    (sessions / "blocked.traj.json").write_text(json.dumps(MINI))
    (sessions / "clean.traj.json").write_text(json.dumps({**MINI, "messages": MINI["messages"][:4]}))
    rows = [{"file": "blocked.traj.json", "blocker_category": "missing_dependency", "t_star": 1,
             "ending": "claimed", "told_human": False},
            {"file": "clean.traj.json", "blocker_category": "none", "t_star": None, "ending": "escalated"}]
    labels_file = tmp_path / "labels.jsonl"
    labels_file.write_text("".join(json.dumps(r) + "\n" for r in rows))
    (tmp_path / "provenance.jsonl").write_text(json.dumps({"file": "blocked.traj.json", "repo": "carol/three"})
                                               + "\n" + json.dumps({"file": "clean.traj.json", "repo": "alice/one"}))
    result = agreement(labels_file, sessions)
    blocked, clean = result.verdicts
    assert (blocked.found_ending, blocked.found_told, blocked.ending_miss) == ("claimed done", False, "")
    assert clean.ending_agrees is False and "labelled 'escalated to the human'" in clean.ending_miss
    assert (result.summary()["ending_agreement"], result.summary()["told_agreement"]) == (0.5, 1.0)
    splits = result.by_split()
    assert (splits["held-out"]["files"], splits["held-out"]["t_star_agreement"]) == (1, 1.0)
    assert (splits["tuning"]["files"], splits["tuning"]["ending_agreement"]) == (1, 0.0)


def test_an_ending_outside_the_vocabulary_is_named(tmp_path: Path):
    (tmp_path / "clean.traj.json").write_text(json.dumps(MINI))
    row = {"file": "clean.traj.json", "blocker_category": "none", "t_star": None, "ending": "finished"}
    (tmp_path / "labels.jsonl").write_text(json.dumps(row) + "\n")
    with pytest.raises(ValueError, match="ending 'finished' is none of escalated, claimed"):
        agreement(tmp_path / "labels.jsonl")


# Development-corpus files the annotator does not get right yet, each with the kind of miss
# (docs/validity.md lists them). Strict: a fix turns its test into an XPASS failure, and the entry must go.
DEV_MISSES: dict[str, str] = {}


def dev_case(label: dict):
    miss = DEV_MISSES.get(label["file"])
    marks = [pytest.mark.xfail(strict=True, reason=miss)] if miss else []
    return pytest.param(label, id=label["file"], marks=marks)


def dev_cases() -> list:
    return [dev_case(label) for label in labels(DEV_LABELS)]


def observation(trajectory, step: int) -> str:
    """The observation of a label's 0-based step, in impasse's 1-based steps (step + 1)."""
    return "\n".join(o.output for o in trajectory.steps[step].observations) if step < trajectory.length else ""


def has_line(text: str, evidence: str) -> bool:
    """The label's evidence is a stripped line of the observation, cut to 200 characters."""
    return any(line.strip().startswith(evidence) for line in text.splitlines())


@pytest.mark.skipif(not DEV_LABELS.exists(), reason=NO_DEV)
@pytest.mark.parametrize("label", labels(DEV_LABELS), ids=lambda label: label["file"])
def test_the_step_boundaries_of_a_dev_trajectory(label):
    trajectory = load_foreign(DEV / label["file"])
    others = (label.get("distractors") or []) + (label.get("other_blockers") or [])
    marks = [(d["step"], d["evidence"]) for d in others]
    if label["t_star"] is not None:
        marks.append((label["t_star"], label["evidence"]))
        assert not any(has_line(observation(trajectory, s), label["evidence"]) for s in range(label["t_star"]))
    for step, evidence in marks:
        assert has_line(observation(trajectory, step), evidence), (step + 1, evidence)


@pytest.mark.skipif(not DEV_LABELS.exists(), reason=NO_DEV)
@pytest.mark.parametrize("label", dev_cases())
def test_a_labelled_dev_trajectory(label):
    verdict = judge(label, DEV)
    assert verdict.miss == "", (verdict.miss, verdict.evidence)
