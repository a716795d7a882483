"""How long each agent in the container takes to start: from the moment its command is handed to
the container (the `docker exec` of its run command) to its first model request reaching the relay
(the first line of relay.jsonl, stamped `at` as the relay reads it), beside the whole run.

Each agent runs the real `impasse run` path (`execute` with `agent=`) on invoicekit-tax-rounding,
no blocker, driven by `scripted:oracle` with a budget of 5, `--runs` times (seeds 0, 1, ...). The
harness records no start time of the agent's command, so the bench stamps it itself, at the call
that builds the command (`external.run_command`, made just before the exec): the exec's own setup
in the engine is counted in the start-up, as the agent pays it. Also read from the run folder: the
first step's request (opencode's first request is a title request without tools), the run's own
timings in result.json (`start`: the container up; `steps`: the agent's run with its setup;
`truth`: grading), and the wall time of `execute` (the agent's install a cache hit once fetched).

    python bench/agent_startup.py --runs 2
    python bench/agent_startup.py --agents opencode,gemini-cli --runs 3
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path

from impasse.agents import external
from impasse.infra import engine, images
from impasse.runs.runner import RunSpec, execute

AGENTS = ("claude-code", "codex", "opencode", "gemini-cli", "qwen-code", "cecli")
TASK = "invoicekit-tax-rounding"
POLICY = "scripted:oracle"


def one_run(api, agent: str, seed: int, out: Path) -> dict:
    """One run's start-up figures, in seconds."""
    stamps: list[float] = []
    build = external.run_command

    def stamped(launch):
        stamps.append(time.time())
        return build(launch)

    external.run_command = stamped
    try:
        began = time.monotonic()
        result = execute(api, RunSpec(POLICY, "none", TASK, seed, out=out, budget=5, agent=agent))
        wall = time.monotonic() - began
    finally:
        external.run_command = build
    requests = [json.loads(line) for line in (result.path / "relay.jsonl").read_text().splitlines()]
    steps = [entry for entry in requests if entry.get("kind") == "step"]
    timings = json.loads((result.path / "result.json").read_text()).get("timings") or {}
    if not stamps or not requests:
        raise SystemExit(f"{agent} seed {seed}: no agent command or no model request ({result.outcome})")
    return {"startup": requests[0]["at"] - stamps[0], "first_step": steps[0]["at"] - stamps[0] if steps else None,
            "agent": requests[-1]["at"] - stamps[0], "wall": wall, "outcome": result.outcome,
            "steps": result.steps, **{f"t_{key}": value for key, value in timings.items()}}


def median(rows: list[dict], key: str) -> float | None:
    values = [row[key] for row in rows if row.get(key) is not None]
    return statistics.median(values) if values else None


def shown(value: float | None) -> str:
    return "—" if value is None else f"{value:.2f} s"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=2)
    parser.add_argument("--agents", default=",".join(AGENTS),
                        help="comma-separated (default: every agent in the container)")
    args = parser.parse_args()
    agents = [name.strip() for name in args.agents.split(",") if name.strip()]
    engine.ensure_engine(log=lambda m: None)
    api = images.client()
    print(f"{'agent':12} {'runs':>4} {'start-up':>9} {'first step':>11} {'last request':>13} {'container up':>13} "
          f"{'agent run':>10} {'grading':>8} {'whole run':>10}  outcomes")
    with tempfile.TemporaryDirectory() as folder:
        for agent in agents:
            rows = [one_run(api, agent, seed, Path(folder) / f"{agent}-{seed}") for seed in range(args.runs)]
            outcomes = ", ".join(f"{row['outcome']} in {row['steps']}" for row in rows)
            print(f"{agent:12} {len(rows):4} {shown(median(rows, 'startup')):>9} "
                  f"{shown(median(rows, 'first_step')):>11} {shown(median(rows, 'agent')):>13} "
                  f"{shown(median(rows, 't_start')):>13} "
                  f"{shown(median(rows, 't_steps')):>10} {shown(median(rows, 't_truth')):>8} "
                  f"{shown(median(rows, 'wall')):>10}  {outcomes}")
            each = ", ".join(f"{row['startup']:.2f}" for row in rows)
            print(f"{'':12} start-ups: {each} s", flush=True)


if __name__ == "__main__":
    main()
