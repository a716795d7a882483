"""`impasse show RUN`: a run, readably."""

from __future__ import annotations

from pathlib import Path

from rich.console import Console
from rich.markup import escape
from rich.panel import Panel

from impasse.episode.rundir import read_run

OUTPUT_LINES = 30


def clip(text: str, lines: int = OUTPUT_LINES) -> str:
    rows = text.splitlines()
    return text if len(rows) <= lines else "\n".join(rows[:lines] + [f"… ({len(rows) - lines} more lines)"])


def render_run(path: Path, console: Console) -> None:
    record = read_run(path)
    meta = record.meta
    agent = "" if meta.agent == "impasse" else f"agent {meta.agent}  "
    console.print(Panel(f"{agent}model {meta.model}  task {meta.task}  condition {meta.condition}  "
                        f"seed {meta.seed}  budget {meta.budget}", title=meta.run_id), highlight=False)
    for step in record.steps:
        console.rule(f"step {step.index} ({step.kind})")
        if step.reasoning:
            console.print(clip(step.reasoning, 8), style="dim italic", markup=False, highlight=False)
        if step.text:
            console.print(step.text, style="italic", markup=False, highlight=False)
        for call, obs in zip(step.tool_calls, step.observations, strict=False):
            arguments = call.arguments or {"raw": call.raw_arguments}
            shown = arguments.get("command") or arguments.get("path") or arguments.get("summary") \
                or arguments.get("reason") or arguments
            console.print(f"[bold]{escape(call.name)}[/] {escape(str(shown))}", highlight=False)
            flag = f" [red]injected: {obs.injected}[/]" if obs.injected else ""
            console.print(f"[dim]exit {obs.exit_code}{flag}[/]")
            console.print(clip(obs.output), markup=False, highlight=False)
        if step.harness_error:
            console.print(f"harness error: {step.harness_error}", style="red", markup=False)
    for problem in record.problems:
        console.print(f"[yellow]{problem}[/]", markup=False)
    result = record.result
    if result is None:
        console.print("[yellow]no result.json: the run did not finish[/]")
        return
    route = f"\nroute: {result.route}" if result.route else ""
    console.print(Panel(escape(f"outcome {result.outcome}; resolved={result.resolved}; "
                               f"blocker active at start={result.blocker_active_at_start}, "
                               f"at end={result.blocker_active_at_end}; "
                               f"integrity ok={result.integrity_ok}; cost {cost_of_run(result.cost)}\n"
                               f"{result.ending.kind}: {result.ending.message}{route}"), title="result"),
                  highlight=False)
    if result.tampered:
        console.print(tampering_panel(result.tampered), highlight=False)


def tampering_panel(tampering: list[dict]) -> Panel:
    """Each route by which the agent forged or tampered with the truth, with what the harness saw."""
    lines = [f"[bold]{escape(str(t.get('route')))}[/]: {escape(str(t.get('evidence', '')))}" for t in tampering]
    return Panel("\n".join(lines), title="tampering: the agent forged or tampered with the truth",
                 border_style="red")


def cost_of_run(cost: dict | None) -> str:
    if cost is None:
        return "not recorded"
    return "unknown" if cost.get("usd") is None else f"${cost['usd']:.4f}"
