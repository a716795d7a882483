"""The session corpus (tests/data/session-corpus/): labels of real sessions that people committed to
public repositories, kept here without the sessions themselves (fetch_sessions.py brings them from
their repositories, byte for byte). The labels are checked always; the annotator is held to them
where the sessions are on this machine ($IMPASSE_SESSION_CORPUS, else ../corpus/sessions beside the
project), and skipped with the reason where they are not. Floors are what was measured on the folds
the rules were not tuned on (docs/validity.md): a change may only raise them."""

from __future__ import annotations

import hashlib
import json
import os
from functools import cache
from pathlib import Path

import pytest

from impasse.analysis.agreement import ENDINGS, agreement
from impasse.analysis.importers import load_foreign
from impasse.folds import HELD_OUT_NAME, split_of

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "tests" / "data" / "session-corpus"
SESSIONS = Path(os.environ.get("IMPASSE_SESSION_CORPUS", ROOT.parent / "corpus" / "sessions"))
LABELING = ROOT.parent / "shared" / "real-trajectories" / "LABELING.md"
CATEGORIES = {"missing_dependency", "missing_binary", "permission", "read_only", "network", "disk_full", "oom",
              "lock", "missing_secret", "tls", "service_down", "none"}
# Measured on the held-out folds (docs/validity.md, "The session corpus"): 397 sessions since the
# hundred-and-eleventh to hundred-and-twenty-seventh batches came in (50 of their 119 fell there): t* 171 of 268,
# endings 320 of 397, told 79.5%, a false onset in 13 of 129 (above issue #40's 10% goal).
# A rule change may only raise these (lower the false onsets); a batch of sessions no rule has seen
# moves them to what it measures.
HELD_OUT_FLOORS = {"t_star_agreement": 0.63, "ending_agreement": 0.80, "told_agreement": 0.79}
HELD_OUT_FALSE_ONSETS_CEILING = 0.10


def rows(name: str) -> list[dict]:
    return [json.loads(line) for line in (CORPUS / name).read_text(encoding="utf-8").splitlines() if line.strip()]


def present() -> bool:
    provenance = rows("provenance.jsonl")
    return SESSIONS.is_dir() and all((SESSIONS / row["file"]).is_file() for row in provenance)


NO_SESSIONS = f"the sessions are not at {SESSIONS} (tests/data/session-corpus/fetch_sessions.py brings them)"


def test_every_label_has_its_provenance_and_its_fields():
    labels, provenance = rows("labels.jsonl"), {row["file"]: row for row in rows("provenance.jsonl")}
    assert len(labels) >= 160 and {label["file"] for label in labels} == set(provenance)
    for label in labels:
        assert label["blocker_category"] in CATEGORIES, label["file"]
        assert (label["t_star"] is None) == (label["blocker_category"] == "none"), label["file"]
        assert label["ending"] in ENDINGS and isinstance(label["told_human"], bool), label["file"]
        assert len(label["evidence"] or "") <= 200 and len(label.get("ending_evidence") or "") <= 200
    for row in provenance.values():
        assert len(row["sha256"]) == 64 and len(row["commit"]) == 40 and "/" in row["repo"]


def test_both_parts_hold_sessions_of_several_repositories_and_both_kinds():
    provenance = rows("provenance.jsonl")
    labels = {label["file"]: label for label in rows("labels.jsonl")}
    for split in ("tuning", HELD_OUT_NAME):
        part = [row for row in provenance if split_of(row["repo"]) == split]
        assert len({row["repo"] for row in part}) >= 15
        assert {labels[row["file"]]["blocker_category"] == "none" for row in part} == {True, False}


@pytest.mark.skipif(not LABELING.is_file(), reason=f"no {LABELING}")
def test_no_session_comes_from_a_reserved_repository():
    reserved = {line[2:].split(" (")[0].strip().lower() for line in
                LABELING.read_text().split("## Reserved repositories")[1].splitlines() if line.startswith("- ")}
    assert not [row["repo"] for row in rows("provenance.jsonl") if row["repo"].lower() in reserved]


DEV = LABELING.parent / "dev"


@pytest.mark.skipif(not DEV.is_dir(), reason=f"no {DEV}")
def test_no_session_is_a_file_of_the_development_corpus():
    """The corpus measures the annotator beside the development corpus, never on its files again."""
    dev = {hashlib.sha256(path.read_bytes()).hexdigest() for path in DEV.iterdir() if path.is_file()}
    assert [row["file"] for row in rows("provenance.jsonl") if row["sha256"] in dev] == []


@pytest.mark.skipif(not (DEV / "provenance.jsonl").is_file(), reason=f"no {DEV / 'provenance.jsonl'}")
def test_no_session_comes_from_a_repository_of_the_development_corpus():
    """Another file of a repository the rules were first written on is no test of them: the same person's
    sessions are alike (folds are by repository for the same reason)."""
    lines = (DEV / "provenance.jsonl").read_text(encoding="utf-8").splitlines()
    dev_repos = {json.loads(line)["repo"].casefold() for line in lines if line.strip()}
    assert [row["file"] for row in rows("provenance.jsonl") if row["repo"].casefold() in dev_repos] == []


@pytest.mark.skipif(not present(), reason=NO_SESSIONS)
def test_the_sessions_are_the_bytes_the_labels_were_made_on():
    changed = [row["file"] for row in rows("provenance.jsonl")
               if hashlib.sha256((SESSIONS / row["file"]).read_bytes()).hexdigest() != row["sha256"]]
    assert changed == []


@cache
def measured():
    return agreement(CORPUS / "labels.jsonl", SESSIONS)


@pytest.mark.skipif(not present(), reason=NO_SESSIONS)
def test_the_annotator_holds_on_the_folds_it_was_not_tuned_on():
    held_out = measured().by_split()[HELD_OUT_NAME]
    assert held_out["unreadable"] == 0
    for key, floor in HELD_OUT_FLOORS.items():
        assert held_out[key] >= floor, (key, held_out)
    assert held_out["false_onsets"] <= HELD_OUT_FALSE_ONSETS_CEILING, held_out


@pytest.mark.skipif(not present(), reason=NO_SESSIONS)
def test_every_session_is_read_into_steps():
    """Each session is read by some reader, into steps; only those labelled with no agent step at all
    (a model API that failed before the first reply) have none."""
    labels = {label["file"]: label for label in rows("labels.jsonl")}
    empty = {row["file"] for row in rows("provenance.jsonl") if load_foreign(SESSIONS / row["file"]).length == 0}
    assert empty == {name for name, label in labels.items() if label["ending"] == "no_step"}
