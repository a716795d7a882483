"""Benchmark: what the runtime sensors add to one tool call (the goal: at most 5 ms per step).

Usage: python bench/sensor_cost.py [--calls 20000]
Starts one real sandbox on a task image, attaches the sensors to its memory cgroup, and times
`Sensors.after_call` (the read that follows every bash and edit_file call), min / median / p99."""

from __future__ import annotations

import argparse
import statistics
import time

from impasse.catalog.tasks import load_task_by_id
from impasse.infra import images
from impasse.infra.layers import ensure_task_image
from impasse.infra.sandbox import SandboxSpec, open_sandbox
from impasse.infra.sensors import Sensors

TASK = "logpipe-distinct"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--calls", type=int, default=20000)
    args = parser.parse_args()
    api = images.client()
    image = ensure_task_image(api, load_task_by_id(TASK), log=lambda m: None)
    with open_sandbox(api, SandboxSpec(image=image, labels={"impasse.run_id": "bench-sensors"})) as box:
        sensors = Sensors.attach(box.id)
        if sensors is None:
            print("runtime sensors: unavailable here (the engine's cgroups are not on this host)")
            return
        samples = []
        for _ in range(args.calls):
            started = time.perf_counter()
            sensors.after_call()
            samples.append(time.perf_counter() - started)
    samples.sort()
    micro = [s * 1e6 for s in (samples[0], statistics.median(samples), samples[int(len(samples) * 0.99)])]
    print(f"runtime sensors per call: min {micro[0]:.1f} µs, median {micro[1]:.1f} µs, p99 {micro[2]:.1f} µs "
          f"(goal ≤ 5000 µs per step)")


if __name__ == "__main__":
    main()
