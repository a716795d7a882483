"""Benchmark: the `impasse` Inspect sandbox's `exec` per command against impasse's own channel (the
executor `impasse run` uses), paired in one run on one container under chown_root: the goal is at most
1.2x. Both run `true` as the agent; the sandbox adds Inspect's argv-to-shell line and a thread hop.

Usage: python bench/inspect_exec_overhead.py [--commands 200]"""

from __future__ import annotations

import argparse
import statistics
import time

import anyio

from impasse.inspect_ext.sandbox import ImpasseSandbox
from impasse.models.turns import ToolCall
from impasse.vocabulary import Tool

TASK = "invoicekit-tax-rounding"


async def paired(commands: int) -> tuple[list[float], list[float]]:
    environments = await ImpasseSandbox.sample_init("bench", "chown_root", {"impasse_task": TASK})
    box = environments["default"]
    executor = box.live.executor
    own, inspect = [], []
    try:
        for index in range(commands):
            clock = time.perf_counter()
            executor.run(ToolCall(f"b{index}", Tool.BASH, {"command": "true"}))
            own.append(time.perf_counter() - clock)
            clock = time.perf_counter()
            await box.exec(["true"])
            inspect.append(time.perf_counter() - clock)
    finally:
        await ImpasseSandbox.sample_cleanup("bench", "chown_root", environments, interrupted=False)
    return own, inspect


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--commands", type=int, default=200)
    args = parser.parse_args()
    own, inspect = anyio.run(paired, args.commands)
    own_ms, inspect_ms = statistics.median(own) * 1000, statistics.median(inspect) * 1000
    print(f"{args.commands} commands, median per command: impasse's channel {own_ms:.2f} ms, the Inspect "
          f"sandbox's exec {inspect_ms:.2f} ms; ratio {inspect_ms / own_ms:.2f}x (goal <= 1.2x)")


if __name__ == "__main__":
    main()
