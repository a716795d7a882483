"""Measure: the annotator's t* against the counterfactual onset oracle on scripted:mimic runs.

Usage: python bench/onset_agreement.py [--matrix harness/matrix-mimic.yaml] [--workers 2]
Runs the matrix (finished runs are kept), replays every run under `none` (counterfactual.json in
each run folder; an existing one is reused), and prints per card: runs, agreement, the annotator
late / early / never-hit where the oracle saw an onset, and onsets on `none` runs. The figures are
written to <out>/onset-agreement.json and reported in docs/validity.md."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from collections import defaultdict
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import docker

from impasse.analysis.driver import annotate_paths
from impasse.episode.rundir import write_json_atomic
from impasse.proving.counterfactual import RESULT_FILE, replay_and_store
from impasse.runs.matrix import load_matrix_file


def oracle(api, record) -> dict:
    stored = Path(record.path) / RESULT_FILE
    if stored.exists():
        return json.loads(stored.read_text())
    return replay_and_store(api, record).to_dict()


def compare(annotation, found: dict) -> str:
    ours, theirs = annotation.row.t_star, found["onset"]
    if ours == theirs:
        return "agree"
    if ours is None:
        return "never_hit"  # the oracle saw the blocker, the annotator did not
    if theirs is None:
        return "false_onset"
    return "late" if ours > theirs else "early"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--matrix", type=Path, default=Path("harness/matrix-mimic.yaml"))
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--finished-only", action="store_true", help="Score the runs already finished.")
    args = parser.parse_args()
    spec = load_matrix_file(args.matrix)
    if not args.finished_only:
        subprocess.run([sys.executable, "-m", "impasse", "matrix", "--file", str(args.matrix),
                        "--workers", str(args.workers)], check=True)
    batch = annotate_paths(sorted(p.parent for p in spec.out.glob("*/result.json")))  # each run read once
    api = docker.from_env(timeout=600)
    with ThreadPoolExecutor(args.workers) as pool:
        found = dict(zip(batch.records, pool.map(lambda r: oracle(api, r), batch.records.values()), strict=True))
    table: dict[str, dict] = defaultdict(lambda: defaultdict(int))
    cases = []
    for annotation in batch.annotations:
        run = annotation.row.run_id
        verdict = compare(annotation, found[run])
        table[annotation.row.condition][verdict] += 1
        if verdict != "agree":
            cases.append({"run": run, "verdict": verdict, "annotator": annotation.row.t_star,
                          "oracle": found[run]["onset"], "evidence": found[run]["evidence"][:2]})
    total = sum(sum(v.values()) for v in table.values())
    agree = sum(v["agree"] for v in table.values())
    for card in sorted(table):
        row = table[card]
        print(f"{card:24} runs {sum(row.values()):3}  agree {row['agree']:3}  late {row['late']}  "
              f"early {row['early']}  never_hit {row['never_hit']}  false_onset {row['false_onset']}")
    print(f"annotator t* = counterfactual t* on {agree} of {total} runs ({agree / max(total, 1):.1%})")
    replay = [f["replay_seconds"] / f["run_seconds"] for f in found.values() if f.get("run_seconds")]
    if replay:
        print(f"replay time / run time: median {sorted(replay)[len(replay) // 2]:.2f}, max {max(replay):.2f}")
    for case in cases:
        print(json.dumps(case))
    write_json_atomic(spec.out / "onset-agreement.json",
                      {"by_card": {k: dict(v) for k, v in table.items()}, "agree": agree, "total": total,
                       "disagreements": cases}, indent=2)


if __name__ == "__main__":
    main()
