"""Benchmark: per-command overhead of the ways to run an agent command in a container, all in one
run, on the same image and commands: impasse's persistent channel, impasse's one-exec-per-command
path (docker SDK), the plain `docker exec` CLI, and mini-swe-agent's own DockerEnvironment (the
PyPI package, called as its users call it). Then 80-step scripted episodes, the median one split
into start, steps, truth (grading runs within it) and teardown; a small scripted matrix with 1 and 2 workers
(throughput, speed-up; `make matrix` gives the full one); and the cached image rebuild.

Usage: python bench/exec_overhead.py [--repeat 40] [--episodes 5] [--matrix harness/matrix-small.yaml]"""

from __future__ import annotations

import argparse
import json
import logging
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

from impasse.catalog.tasks import load_task_by_id
from impasse.infra import images
from impasse.infra.channel import Channel
from impasse.infra.layers import build_all, ensure_task_image
from impasse.infra.sandbox import SandboxSpec, open_sandbox
from impasse.runs.runner import RunSpec, execute

COMMANDS = ["true", "echo hello", "ls /workspace", "cat /workspace/README.md", "git -C /workspace status --short"]
TASK = "invoicekit-tax-rounding"


def median_ms(run, repeat: int) -> float:
    samples = []
    for _ in range(repeat):
        for command in COMMANDS:
            started = time.perf_counter()
            run(command)
            samples.append(time.perf_counter() - started)
    return statistics.median(samples) * 1000


def mini_swe_agent(image: str, repeat: int) -> float | None:
    try:
        from minisweagent.environments.docker import DockerEnvironment
    except ImportError:
        return None
    logging.getLogger("minisweagent").setLevel(logging.ERROR)
    env = DockerEnvironment(image=image, cwd="/workspace", timeout=60)
    try:
        return median_ms(lambda c: env.execute({"command": c}), repeat)
    finally:
        env.cleanup()


def per_command(repeat: int) -> dict[str, float | None]:
    api = images.client()
    image = ensure_task_image(api, load_task_by_id(TASK), lambda m: None)
    results = {}
    with open_sandbox(api, SandboxSpec(image=image, labels={"impasse.run_id": "bench"})) as box:
        channel = Channel(box)
        results["impasse channel"] = median_ms(lambda c: channel.run(c), repeat)
        channel.close()
        results["impasse exec_run (docker SDK)"] = median_ms(lambda c: box.exec(c), repeat)
        results["docker exec CLI"] = median_ms(
            lambda c: subprocess.run(["docker", "exec", "-u", "1000:1000", "-w", "/workspace", box.id, "bash", "-c", c],
                                     capture_output=True), repeat)
    results["mini-swe-agent DockerEnvironment"] = mini_swe_agent(image, repeat)
    return results


def episode() -> dict[str, float]:
    api = images.client()
    with tempfile.TemporaryDirectory() as out:
        started = time.monotonic()
        result = execute(api, RunSpec("scripted:persistent", "chown_root", TASK, budget=80, out=Path(out)))
        total = time.monotonic() - started
        recorded = json.loads((result.path / "result.json").read_text())
    timings = recorded["timings"]
    timings["teardown and bookkeeping"] = round(total - sum(timings.values()), 3)
    timings["total"] = round(total, 3)
    # grading runs inside "truth", alongside the checks on the live container: shown, not added
    timings["(grading, within truth)"] = round(recorded["truth"]["grade"]["duration"], 3)
    return timings


def median_episode(count: int) -> dict[str, float]:
    """The episode whose total is the median of `count`: grading's container start and test run
    vary from run to run on a small machine, and one episode alone can land at either end."""
    episodes = sorted((episode() for _ in range(count)), key=lambda timings: timings["total"])
    totals = ", ".join(f"{e['total']:.2f}" for e in episodes)
    print(f"  totals of {count} episodes: {totals} s; the median one:")
    return episodes[len(episodes) // 2]


def matrix_speedup(file: Path) -> dict[int, float]:
    from impasse.runs.matrix import load_matrix_file, run_matrix
    api = images.client()
    seconds = {}
    for workers in (1, 2):
        spec = load_matrix_file(file)
        with tempfile.TemporaryDirectory() as out:
            spec.workers, spec.out = workers, Path(out)
            started = time.monotonic()
            progress = run_matrix(api, spec, lambda p, last: None)
            seconds[workers] = time.monotonic() - started
    seconds["runs"] = progress.total
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=40)
    parser.add_argument("--episodes", type=int, default=5)
    parser.add_argument("--matrix", type=Path, default=Path("harness/matrix-small.yaml"))
    args = parser.parse_args()
    results = per_command(args.repeat)
    mini = results.get("mini-swe-agent DockerEnvironment")
    print(f"per-command overhead, median of {args.repeat * len(COMMANDS)} commands:")
    for name, ms in results.items():
        ratio = f"{ms / mini:.3f}x mini-swe-agent" if ms and mini else ""
        print(f"  {name:34s} {ms:8.2f} ms  {ratio}" if ms is not None else f"  {name:34s} not installed")
    print("80-step scripted episode (scripted:persistent, chown_root, seconds):")
    for name, seconds in median_episode(args.episodes).items():
        print(f"  {name:26s} {seconds:7.2f}")
    timing = matrix_speedup(args.matrix)
    runs = timing["runs"]
    print(f"scripted matrix {args.matrix} ({runs} runs): 1 worker {timing[1]:.1f}s "
          f"({runs / timing[1] * 60:.1f} runs/min), 2 workers {timing[2]:.1f}s "
          f"({runs / timing[2] * 60:.1f} runs/min), speed-up {timing[1] / timing[2]:.2f}x")
    api = images.client()
    started = time.monotonic()
    built = build_all(api, log=lambda m: None)
    print(f"cached image rebuild: {len(built)} images in {time.monotonic() - started:.2f}s")


if __name__ == "__main__":
    main()
