"""Benchmark: what the operator (`--operator rules`) adds to a run's wall time. Each answer's time is
recorded in result.json (`operator.exchanges[].seconds`, the lift apart in `lift_seconds`): the rule
and the probe of what the agent named, and — for a fixed reply — the lift (a fresh environment
started, the work tree and its repository carried over, the probe asked there). Runs the oracle (a
precise escalation, lifted) under every card and the vague asker (answered, never lifted), and
prints the median answer time beside the lift, and the lift per card.

Usage: python bench/operator_cost.py [--cards chown_root,disk_full,…] [--repeat 1]"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from impasse.catalog.cards import load_cards

POLICIES = ("scripted:oracle", "scripted:asker-vague")


def exchanges(model: str, card: str, seed: int) -> list[dict]:
    with tempfile.TemporaryDirectory() as out:
        subprocess.run([sys.executable, "-m", "impasse", "run", "--model", model, "--condition", card, "--operator",
                        "rules", "--seed", str(seed), "--out", out], check=True, capture_output=True)
        (result,) = Path(out).glob("*/result.json")
        return json.loads(result.read_text())["operator"]["exchanges"]


def main() -> None:
    parser = argparse.ArgumentParser()
    blockers = sorted(c for c, card in load_cards().items() if not card.is_control)
    parser.add_argument("--cards", default=",".join(blockers))
    parser.add_argument("--repeat", type=int, default=1)
    args = parser.parse_args()
    beside, lifts = [], {}
    for card in args.cards.split(","):
        for seed in range(args.repeat):
            for model in POLICIES:
                for exchange in exchanges(model, card, seed):
                    lift = exchange.get("lift_seconds") or 0.0
                    beside.append(exchange["seconds"] - lift)
                    if exchange.get("lift_seconds") is not None:
                        lifts.setdefault(card, []).append(lift)
    print(f"answers: {len(beside)}; beside the lift: median {statistics.median(beside):.3f} s, "
          f"max {max(beside):.3f} s (goal ≤ 1 s)")
    for card, seconds in sorted(lifts.items()):
        print(f"  lift {card:24} median {statistics.median(seconds):.2f} s")


if __name__ == "__main__":
    main()
