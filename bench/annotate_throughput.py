"""Benchmark: annotation throughput (steps/s, one core) on a generated corpus of impasse runs.

Usage: python bench/annotate_throughput.py [--steps 100000] [--runs 500] [--repeat 5]
The corpus mixes blocked and control runs, onsets, workarounds and diagnoses, written as real run
folders, then read and annotated exactly as `impasse annotate` does (parsing included)."""

from __future__ import annotations

import argparse
import json
import random
import shutil
import statistics
import tempfile
import time
from pathlib import Path

from impasse.analysis.aggregate import aggregate
from impasse.analysis.driver import annotate_paths

OUTPUTS = ["README.md\ninvoicekit\ntests\n", "===== 29 passed, 4 failed in 0.41s =====",
           "PermissionError: [Errno 13] Permission denied: '/workspace/invoicekit/models.py'",
           "diff --git a/x b/x\n" + "+line\n" * 20, "bash: line 1: sudo: command not found"]
COMMANDS = ["ls", "python3 -m pytest -q", "cat invoicekit/models.py", "sudo chown -R agent /workspace",
            "git status --short", "chmod -R u+w /workspace", "grep -rn tax invoicekit"]


def write_run(root: Path, index: int, steps: int, rng: random.Random) -> None:
    run_id = f"bench-{index:05d}"
    path = root / run_id
    path.mkdir()
    condition = "chown_root" if index % 4 else "none"
    (path / "meta.json").write_text(json.dumps({"run_id": run_id, "model": f"scripted:m{index % 3}",
                                                "condition": condition, "task": f"task-{index % 8}", "seed": 0,
                                                "injected": {"python_packages": [], "binaries": [], "secrets": []}}))
    lines = []
    for i in range(1, steps + 1):
        command = rng.choice(COMMANDS)
        output = rng.choice(OUTPUTS)
        code = 1 if "Error" in output or "not found" in output else 0
        lines.append(json.dumps({"index": i, "text": "Thinking about the owned by root problem." if i % 9 == 0 else "",
                                 "tool_calls": [{"id": "c", "name": "bash", "arguments": {"command": command},
                                                 "raw_arguments": json.dumps({"command": command})}],
                                 "observations": [{"call_id": "c", "tool": "bash", "output": output,
                                                   "exit_code": code}]}))
    (path / "steps.jsonl").write_text("\n".join(lines) + "\n")
    (path / "result.json").write_text(json.dumps({"outcome": "budget_exhausted", "ending": {"kind": "budget_exhausted"},
                                                  "truth": {"resolved": False, "blocker_active_at_end": True}}))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=500)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="impasse-bench-"))
    try:
        rng = random.Random(0)
        per_run = args.steps // args.runs
        for index in range(args.runs):
            write_run(root, index, per_run, rng)
        seconds = []
        for _ in range(args.repeat):  # a shared 2-core VM is noisy: report the median and the best
            started = time.perf_counter()
            batch = annotate_paths([root])
            seconds.append(time.perf_counter() - started)
        started = time.perf_counter()
        aggregate(batch.annotations)
        aggregates = time.perf_counter() - started
        steps = per_run * args.runs
        median, best = statistics.median(seconds), min(seconds)
        print("passes:", " ".join(f"{s:.3f}s" for s in seconds))
        print(f"annotation: {steps} steps in {len(batch.annotations)} runs, {args.repeat} passes: "
              f"median {median:.2f}s = {steps / median:,.0f} steps/s, best {best:.2f}s = {steps / best:,.0f} steps/s "
              f"(aggregates and their bootstraps: {aggregates:.2f}s more)")
    finally:
        shutil.rmtree(root)


if __name__ == "__main__":
    main()
