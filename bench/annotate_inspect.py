"""Benchmark: `impasse annotate` on one Inspect log of 1,000 samples against the same sessions as
impasse run folders (bench/annotate_throughput.py's corpus), paired in one run: the goal is at most
2x the run folders' time. The log is written by inspect-ai itself (.eval), each sample in impasse's
sandbox under its run's card, as impasse's Inspect task writes them; reading it is inspect-ai's reader,
then the same stepping and annotation. The time of inspect-ai's reader alone is printed beside.

Usage: python bench/annotate_inspect.py [--sessions 1000] [--steps 40] [--repeat 3]"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

from inspect_ai.log import EvalConfig, EvalDataset, EvalLog, EvalSample, EvalSpec, read_eval_log, write_eval_log
from inspect_ai.model import ChatMessageAssistant, ChatMessageTool, ChatMessageUser
from inspect_ai.tool import ToolCall
from inspect_ai.util import SandboxEnvironmentSpec

from impasse.analysis.driver import annotate_paths
from impasse.inspect_ext.sandbox import ImpasseSandboxConfig

sys.path.insert(0, str(Path(__file__).parent))
from annotate_throughput import write_run  # noqa: E402  (the run-folder corpus, the same sessions)


def sample_of(run: Path) -> EvalSample:
    """The run folder's steps as an Inspect sample: a turn with a bash call, its result."""
    messages = [ChatMessageUser(content="Fix the bug.")]
    for line in (run / "steps.jsonl").read_text().splitlines():
        step = json.loads(line)
        call, seen = step["tool_calls"][0], step["observations"][0]
        messages.append(ChatMessageAssistant(content=step["text"], tool_calls=[
            ToolCall(id=f"c{step['index']}", function="bash", arguments=call["arguments"])]))
        messages.append(ChatMessageTool(content=f"exit code: {seen['exit_code']}\n{seen['output']}",
                                        tool_call_id=f"c{step['index']}", function="bash"))
    card = json.loads((run / "meta.json").read_text())["condition"]
    return EvalSample(id=run.name, epoch=1, input="Fix the bug.", target="", messages=messages,
                      sandbox=SandboxEnvironmentSpec("impasse", ImpasseSandboxConfig(card=card)))


def timed(paths: list[Path], repeat: int) -> tuple[float, int]:
    times, count = [], 0
    for _ in range(repeat):
        clock = time.perf_counter()
        count = len(annotate_paths(paths).annotations)
        times.append(time.perf_counter() - clock)
    return statistics.median(times), count


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sessions", type=int, default=1000)
    parser.add_argument("--steps", type=int, default=40)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="impasse-bench-inspect-"))
    try:
        runs = root / "runs"
        runs.mkdir()
        rng = random.Random(0)
        for index in range(args.sessions):
            write_run(runs, index, args.steps, rng)
        log = EvalLog(eval=EvalSpec(created="2026-12-04T00:00:00+00:00", task="bench", dataset=EvalDataset(),
                                    model="scripted:bench", config=EvalConfig()), status="success",
                      samples=[sample_of(run) for run in sorted(runs.iterdir())])
        write_eval_log(log, str(root / "bench.eval"))
        folders, read = timed([runs], args.repeat)
        inspect, sampled = timed([root / "bench.eval"], args.repeat)
        clock = time.perf_counter()
        read_eval_log(str(root / "bench.eval"))
        reader = time.perf_counter() - clock
        print(f"{read} run folders: {folders:.2f} s; one Inspect log of {sampled} samples: {inspect:.2f} s "
              f"(inspect-ai's reader alone {reader:.2f} s); ratio {inspect / folders:.2f}x (goal <= 2x), "
              f"median of {args.repeat}")
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
