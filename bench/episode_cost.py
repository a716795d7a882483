"""Benchmark: what one episode costs the machine in CPU, and who spends it — the harness process,
the engine (dockerd + containerd), the processes inside the episode's containers (the agent's
commands, the grader's test run, runc's init in each exec), and the rest (runc, the container shims,
the kernel's namespace and overlay work). That cost, not the harness, is what sets how many
latency-bound episodes a machine holds (docs/scaling.md).

Episodes run one at a time on a quiet machine; the first of each kind warms caches and is not
counted. Machine CPU is read from /proc/stat, the containers' from the `docker` cpuacct cgroup
(cgroup v1, cgroupfs driver; elsewhere that column is left out).

Usage: python bench/episode_cost.py [--repeat 4] [--task invoicekit-tax-rounding] [--budget 30]"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from pathlib import Path

from machine_stats import engine_cpu, machine_cpu

from impasse.infra import images
from impasse.runs.runner import RunSpec, execute, resolve, stage

KINDS = (("scripted:persistent", "chown_root"), ("scripted:oracle", "chown_root"), ("scripted:oracle", "none"))
CONTAINERS_CPU = Path("/sys/fs/cgroup/cpuacct/docker/cpuacct.usage")


def containers_cpu() -> float | None:
    return int(CONTAINERS_CPU.read_text()) / 1e9 if CONTAINERS_CPU.exists() else None


def harness_cpu() -> float:
    times = os.times()
    return times.user + times.system


def sample() -> dict[str, float | None]:
    return {"machine": machine_cpu(), "harness": harness_cpu(), "engine": engine_cpu(),
            "containers": containers_cpu(), "wall": time.monotonic()}


def cost_of_kind(api, model: str, condition: str, task: str, budget: int, repeat: int) -> dict[str, float]:
    staged = stage(api, resolve(RunSpec(model, condition, task, out=Path(tempfile.gettempdir()))), lambda m: None)
    rows = []
    for seed in range(repeat + 1):
        with tempfile.TemporaryDirectory() as out:
            before = sample()
            execute(api, RunSpec(model, condition, task, budget=budget, seed=seed, out=Path(out)), staged=staged)
            after = sample()
        if seed:  # the first warms the caches
            rows.append({k: after[k] - before[k] for k in after if after[k] is not None})
    cost = {k: statistics.median(r[k] for r in rows) for k in rows[0]}
    cost["other"] = cost["machine"] - cost["harness"] - cost["engine"] - cost.get("containers", 0.0)
    return cost


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=4)
    parser.add_argument("--task", default="invoicekit-tax-rounding")
    parser.add_argument("--budget", type=int, default=30)
    args = parser.parse_args()
    api = images.client()
    print("| episode | wall s | machine CPU s | harness | engine | in containers | runc, shims, kernel |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for model, condition in KINDS:
        c = cost_of_kind(api, model, condition, args.task, args.budget, args.repeat)
        inside = f"{c['containers']:.2f}" if "containers" in c else "n/a"
        print(f"| {model} under {condition} | {c['wall']:.2f} | {c['machine']:.2f} | {c['harness']:.2f} | "
              f"{c['engine']:.2f} | {inside} | {c['other']:.2f} |", flush=True)


if __name__ == "__main__":
    main()
