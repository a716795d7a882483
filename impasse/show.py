"""`impasse show RUN`: a run, readably."""

from __future__ import annotations

from pathlib import Path

from rich.console import Console
from rich.panel import Panel

from impasse.trajectory import read_run

OUTPUT_LINES = 30


def clip(text: str, lines: int = OUTPUT_LINES) -> str:
    rows = text.splitlines()
    return text if len(rows) <= lines else "\n".join(rows[:lines] + [f"… ({len(rows) - lines} more lines)"])


def render_run(path: Path, console: Console) -> None:
    meta, steps, result, problems = read_run(path)
    console.print(Panel(f"model {meta['model']}  task {meta['task']}  condition {meta['condition']}  "
                        f"seed {meta['seed']}  budget {meta['budget']}", title=meta["run_id"]), highlight=False)
    for step in steps:
        console.rule(f"step {step['index']} ({step['kind']})")
        if step["text"]:
            console.print(step["text"], style="italic", markup=False, highlight=False)
        for call, obs in zip(step["tool_calls"], step["observations"], strict=False):
            arguments = call["arguments"] or {"raw": call["raw_arguments"]}
            shown = arguments.get("command") or arguments.get("path") or arguments.get("summary") \
                or arguments.get("reason") or arguments
            console.print(f"[bold]{call['name']}[/] {shown}", highlight=False)
            flag = f" [red]injected: {obs['injected']}[/]" if obs.get("injected") else ""
            console.print(f"[dim]exit {obs['exit_code']}{flag}[/]")
            console.print(clip(obs["output"]), markup=False, highlight=False)
        if step.get("harness_error"):
            console.print(f"[red]harness error: {step['harness_error']}[/]")
    for problem in problems:
        console.print(f"[yellow]{problem}[/]", markup=False)
    if result is None:
        console.print("[yellow]no result.json: the run did not finish[/]")
        return
    truth = result.get("truth") or {}
    console.print(Panel(f"outcome [bold]{result['outcome']}[/]; resolved={truth.get('resolved')}; "
                        f"blocker active at end={truth.get('blocker_active_at_end')}; "
                        f"integrity ok={truth.get('integrity_ok')}\n"
                        f"{result['ending']['kind']}: {result['ending']['message']}", title="result"))
