"""Benchmark: latency-bound concurrency on one machine. `impasse matrix --workers N` drives episodes
through the real OpenAI adapter against the latency model (bench/latency_model.py, a separate
process), whose turns take seconds, as a real model's do; for each N it measures episodes per
minute, the speed-up over one worker, the harness's CPU and peak memory per episode in flight, the
live containers, and what the machine ran out of (CPU, memory, pids, file descriptors).

Each level runs max(2N, 4) episodes — `persistent` under a blocker (it works until the budget runs
out) and under `none` (it repairs and finishes) — so every worker has two episodes to run, one
long and one short, whatever N is. Every level writes to a fresh folder: nothing is skipped.

Usage: python bench/latency_scaling.py [--workers 1,2,4,8,16,32,64] [--latency uniform:1:4]
                                        [--budget 20] [--json results.json]"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from urllib.request import urlopen

import docker
from machine_stats import busy_ticks, cpu_seconds, pids_of

from impasse.episode.rundir import RunDir, read_json_file

ROOT = Path(__file__).resolve().parents[1]


@dataclass
class Level:
    workers: int
    episodes: int
    wall: float = 0.0  # the `impasse matrix` process, start-up (imports, plan, image check) included
    window: float = 0.0  # first run started → last run finished: what throughput is computed over
    harness_cpu: float = 0.0  # user + system seconds of the `impasse matrix` process and its children
    harness_peak_rss_mb: float = 0.0
    machine_busy: float = 0.0  # share of both cores busy over the level (anyone's work)
    engine_cpu: float = 0.0  # dockerd + containerd seconds
    peak_containers: int = 0
    peak_threads: int = 0
    peak_fds: int = 0
    peak_pids: int = 0
    min_available_mb: float = 0.0
    model_peak_in_flight: int = 0
    model_statuses: dict = field(default_factory=dict)
    outcomes: dict = field(default_factory=dict)
    exit_code: int = 0
    # Where the time went, per episode (means): from its meta to its result, and the runner's phases.
    # Episode time summed over the workers' window says how much of it the workers spent in episodes:
    # what is left is start spacing, waiting for the pool, and the last episodes' tail.
    phases: dict = field(default_factory=dict)
    in_episodes: float = 0.0

    @property
    def per_minute(self) -> float:
        return 60 * self.episodes / self.window


def proc_count(pid: int, what: str) -> int:
    try:
        if what == "fds":
            return len(os.listdir(f"/proc/{pid}/fd"))
        status = Path(f"/proc/{pid}/status").read_text()
        return int(next(line.split()[1] for line in status.splitlines() if line.startswith("Threads:")))
    except (OSError, StopIteration):
        return 0


class Sampler(threading.Thread):
    """Peaks of what a level holds, once a second: live containers of this bench, the harness's
    threads and descriptors, the machine's processes and available memory."""

    def __init__(self, api: docker.DockerClient, pid: int, prefix: str, level: Level) -> None:
        super().__init__(daemon=True)
        self.api, self.pid, self.prefix, self.level = api, pid, prefix, level
        self.level.min_available_mb = float("inf")
        self.stop = threading.Event()

    def run(self) -> None:
        level = self.level
        while not self.stop.wait(1.0):
            ours = [c for c in self.api.containers.list(filters={"label": "impasse=1"}, sparse=True)
                    if c.attrs.get("Labels", {}).get("impasse.run_id", "").startswith(self.prefix)]
            level.peak_containers = max(level.peak_containers, len(ours))
            level.peak_threads = max(level.peak_threads, proc_count(self.pid, "threads"))
            level.peak_fds = max(level.peak_fds, proc_count(self.pid, "fds"))
            level.peak_pids = max(level.peak_pids, sum(1 for p in Path("/proc").iterdir() if p.name.isdigit()))
            meminfo = Path("/proc/meminfo").read_text()
            available = int(next(ln.split()[1] for ln in meminfo.splitlines() if ln.startswith("MemAvailable")))
            level.min_available_mb = min(level.min_available_mb, available / 1024)


def start_model(args) -> tuple[subprocess.Popen, str]:
    proc = subprocess.Popen([sys.executable, str(ROOT / "bench" / "latency_model.py"), "--latency", args.latency,
                             "--rate-429", str(args.rate_429), "--rate-5xx", str(args.rate_5xx)],
                            stdout=subprocess.PIPE, text=True, cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)})
    return proc, proc.stdout.readline().strip()


def model_stats(url: str) -> dict:
    with urlopen(url.removesuffix("/v1") + "/stats", timeout=10) as answer:
        return json.load(answer)


def read_runs(out: Path, level: Level) -> None:
    """Outcomes of the finished runs, the window from the first start to the last finish, and where
    the episodes' time went."""
    starts, ends, phases = [], [], {"episode": 0.0}
    for run in map(RunDir, out.iterdir()):
        if run.finished:
            result = read_json_file(run.result)
            level.outcomes[result["outcome"]] = level.outcomes.get(result["outcome"], 0) + 1
            if result["outcome"] == "harness_error":  # the folder goes with the level: say why here
                print(f"harness error in {run.path.name}: {result['ending']['message']} "
                      f"{(result.get('truth') or {}).get('grading_error') or ''}", file=sys.stderr)
            starts.append(read_json_file(run.meta)["started_at"])
            ends.append(result["finished_at"])
            phases["episode"] += ends[-1] - starts[-1]
            for phase, seconds in result.get("timings", {}).items():
                phases[phase] = phases.get(phase, 0.0) + seconds
    level.window = (max(ends) - min(starts)) if ends else float("nan")
    level.in_episodes = phases["episode"] / (level.workers * level.window) if ends else 0.0
    level.phases = {phase: round(total / max(1, len(ends)), 2) for phase, total in phases.items()}


def run_level(api: docker.DockerClient, args, workers: int) -> Level:
    level = Level(workers, max(2 * workers, 4))
    server, url = start_model(args)
    engine = pids_of("dockerd", "containerd")
    engine_before, (busy_before, total_before) = sum(cpu_seconds(p) for p in engine), busy_ticks()
    with tempfile.TemporaryDirectory(prefix="impasse-latency-") as out:
        command = [sys.executable, "-m", "impasse", "matrix", "--models", f"openai:{args.policy}",
                   "--conditions", args.condition, "--tasks", args.task, "--seeds", str(level.episodes // 2),
                   "--budget", str(args.budget), "--workers", str(workers), "--base-url", url, "--out", out]
        clock = time.monotonic()
        errors = Path(out) / "matrix.stderr"  # a file, not a pipe: a full pipe would stall the matrix
        with errors.open("w") as sink:
            matrix = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=sink)
        sampler = Sampler(api, matrix.pid, f"openai-{args.policy}", level)
        sampler.start()
        _, status, usage = os.wait4(matrix.pid, 0)
        level.wall = time.monotonic() - clock
        sampler.stop.set()
        sampler.join()
        matrix.returncode = level.exit_code = os.waitstatus_to_exitcode(status)
        level.harness_cpu = usage.ru_utime + usage.ru_stime
        level.harness_peak_rss_mb = usage.ru_maxrss / 1024
        read_runs(Path(out), level)
        if level.exit_code:
            print(errors.read_text()[-2000:], file=sys.stderr)
    busy_after, total_after = busy_ticks()
    level.machine_busy = (busy_after - busy_before) / max(1, total_after - total_before)
    level.engine_cpu = sum(cpu_seconds(p) for p in engine) - engine_before
    stats = model_stats(url)
    level.model_peak_in_flight, level.model_statuses = stats["peak_in_flight"], stats["statuses"]
    server.terminate()
    server.wait()
    return level


def report(levels: list[Level]) -> None:
    base = levels[0].per_minute / levels[0].workers
    print("\n| N | episodes | wall s | window s | episodes/min | speed-up | of linear | harness CPU s/episode | "
          "harness CPU % per episode in flight | peak RSS MB | RSS MB per episode in flight | peak containers | "
          "machine busy | engine CPU s | threads | fds | model in flight | workers in episodes | "
          "episode s (start / steps / truth) |")
    print("|" + " --- |" * 19)
    for lv in levels:
        speedup = lv.per_minute / base
        print(f"| {lv.workers} | {lv.episodes} | {lv.wall:.0f} | {lv.window:.0f} | {lv.per_minute:.1f} | "
              f"{speedup:.2f}× | {speedup / lv.workers:.0%} | {lv.harness_cpu / lv.episodes:.2f} | "
              f"{100 * lv.harness_cpu / lv.wall / lv.workers:.1f} | {lv.harness_peak_rss_mb:.0f} | "
              f"{lv.harness_peak_rss_mb / lv.workers:.1f} | {lv.peak_containers} | {lv.machine_busy:.0%} | "
              f"{lv.engine_cpu:.0f} | {lv.peak_threads} | {lv.peak_fds} | {lv.model_peak_in_flight} | "
              f"{lv.in_episodes:.0%} | {phase_summary(lv.phases)} |")
    print()
    for lv in levels:
        speedup = lv.per_minute / base
        print(f"latency-bound speed-up at {lv.workers} workers: {speedup:.2f}× ({speedup / lv.workers:.0%} of linear)")


def phase_summary(phases: dict) -> str:
    return (f"{phases.get('episode', 0):.1f} ({phases.get('start', 0):.1f} / {phases.get('steps', 0):.1f} / "
            f"{phases.get('truth', 0):.1f})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--workers", default="1,2,4,8,16,32,64")
    parser.add_argument("--latency", default="uniform:1:4", help="the latency model's per-turn latency")
    parser.add_argument("--rate-429", type=float, default=0.02)
    parser.add_argument("--rate-5xx", type=float, default=0.01)
    parser.add_argument("--policy", default="persistent")
    parser.add_argument("--condition", default="chown_root")
    parser.add_argument("--task", default="invoicekit-tax-rounding")
    parser.add_argument("--budget", type=int, default=20)
    parser.add_argument("--json", type=Path, help="also write every figure here")
    args = parser.parse_args()
    api = docker.from_env()
    levels = []
    for workers in (int(n) for n in args.workers.split(",")):
        levels.append(run_level(api, args, workers))
        lv = levels[-1]
        print(f"N={workers}: {lv.episodes} episodes in {lv.wall:.0f}s ({lv.per_minute:.1f}/min), outcomes "
              f"{lv.outcomes}, exit {lv.exit_code}; {json.dumps(asdict(lv))}", flush=True)
        if args.json:  # after every level: a long run stopped early keeps what it measured
            args.json.write_text(json.dumps([asdict(lv) for lv in levels], indent=2))
    report(levels)


if __name__ == "__main__":
    main()
