"""Benchmark: what the truth phase of a run costs (the work tree captured, graded in a fresh container
by the harness's runner, read for tampering; the probe and the facts beside it), this checkout's
against another's in the same minutes: runs alternate between the two so a busy machine weighs on
both alike. Each run is a whole `impasse run` of the oracle under `none` (it fixes the bug, so the
grading runs the whole suite); its result.json's `timings.truth` and the grade's own duration are
read back. The first run of each checkout warms its images and is not counted.

Usage: python bench/grading_cost.py [--against DIR] [--repeat 8] [--task invoicekit-tax-rounding]"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent


def one_run(tree: Path, task: str, seed: int) -> tuple[float, float]:
    with tempfile.TemporaryDirectory() as out:
        env = {**os.environ, "PYTHONPATH": str(tree)}
        subprocess.run([sys.executable, "-m", "impasse", "run", "--model", "scripted:oracle", "--condition", "none",
                        "--task", task, "--seed", str(seed), "--out", out], cwd=tree, env=env, check=True,
                       capture_output=True)
        (result,) = Path(out).glob("*/result.json")
        data = json.loads(result.read_text())
        return data["timings"]["truth"], data["truth"]["grade"]["duration"]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--against", type=Path, help="another checkout of impasse (its images are built on first use)")
    parser.add_argument("--repeat", type=int, default=8)
    parser.add_argument("--task", default="invoicekit-tax-rounding")
    args = parser.parse_args()
    trees = {"this": HERE, **({"against": args.against.resolve()} if args.against else {})}
    times: dict[str, list[tuple[float, float]]] = {name: [] for name in trees}
    for seed in range(args.repeat + 1):
        for name, tree in trees.items():
            measured = one_run(tree, args.task, seed)
            if seed:
                times[name].append(measured)
    for name, rows in times.items():
        truth, grading = (statistics.median(column) for column in zip(*rows, strict=True))
        print(f"{name:8} truth {truth:.3f} s  grading {grading:.3f} s  (median of {len(rows)}; {trees[name]})")
    if args.against:
        ratio = statistics.median(t for t, _ in times["this"]) / statistics.median(t for t, _ in times["against"])
        print(f"truth, this / against: {ratio:.3f}")


if __name__ == "__main__":
    main()
