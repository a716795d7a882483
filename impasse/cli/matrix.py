"""`impasse matrix`: many runs, in parallel, resumable."""

from __future__ import annotations

import importlib.util
import signal
import time
from pathlib import Path
from typing import Annotated

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

from impasse import defaults
from impasse.cli.common import console, dim, docker_client, fail, must_be_writable, must_exist, out
from impasse.cli.models import install_or_fail, model_config_or_fail, preflight_or_fail
from impasse.vocabulary import Duty, Gate


def matrix(
    models: Annotated[str | None, typer.Option(help="Comma-separated model specs.")] = None,
    conditions: Annotated[str, typer.Option(help="all, or comma-separated card ids (none is always added).")] = "all",
    tasks: Annotated[str, typer.Option(help="all, or comma-separated task ids.")] = "all",
    generated: Annotated[str | None, typer.Option("--split", help="Add the generated tasks of this split: lite "
                                                                  "(~50, stratified by project) or full.")] = None,
    seeds: Annotated[int, typer.Option(min=1)] = defaults.SEEDS,
    budget: Annotated[int, typer.Option(min=1, help="Step budget of each run.")] = defaults.BUDGET,
    gate: Annotated[Gate, typer.Option(help="Who ends each episode.")] = Gate.TOOL,
    report_duty: Annotated[Duty | None, typer.Option(help="stage: the stage-reporting duty.")] = None,
    tool_timeout: Annotated[int, typer.Option(min=1, help="Seconds before a tool call is killed.")] =
        defaults.TOOL_TIMEOUT,
    base_url: Annotated[str | None, typer.Option(help="OpenAI/Anthropic-compatible endpoint of every model that "
                                                     "names none (a self-hosted vLLM, Ollama or gateway).")] = None,
    key_env: Annotated[str | None, typer.Option(help="Environment variable holding the key of every model that "
                                                    "names none (default <VENDOR>_API_KEY).")] = None,
    workers: Annotated[int | None, typer.Option(min=1, help="Parallel episodes (default 2; overrides --file).")] = None,
    out_dir: Annotated[Path | None, typer.Option("--out", help="Run folder (default runs/; overrides --file).")] = None,
    file: Annotated[Path | None, typer.Option(help="A matrix YAML file (see harness/matrix.yaml).")] = None,
    executor: Annotated[str | None, typer.Option(help="local (threads here, the default) or ray (a Ray cluster "
                                                      "from RAY_ADDRESS; pip install 'impasse[ray]').")] = None,
    model_arg: Annotated[list[str] | None, typer.Option(
        help="A setting KEY=VALUE for every model of --models, repeatable (as `impasse run`).")] = None,
    cost_limit: Annotated[float | None, typer.Option(min=0.0, help="USD per run (it ends cost_exhausted).")] = None,
    spend_cap: Annotated[float | None, typer.Option(min=0.0, help="USD over the matrix: once spent, no run starts "
                                                                  "(the rest stays resumable).")] = None,
    breaker: Annotated[int | None, typer.Option(min=1, help="Transport errors in a row from one model before its "
                                                            "remaining runs are held (default 5).")] = None,
    prices: Annotated[Path | None, typer.Option(help="A price table (YAML) over the repo's.")] = None,
    history: Annotated[str | None, typer.Option(help="What of the conversation each model is sent: full (the "
                                                     "default) or last:N.")] = None,
    agents: Annotated[str | None, typer.Option(help="Comma-separated agents, each × every model: impasse (the "
                                                    "default), claude-code, codex (at their pins, or @VERSION).")] =
        None,
    operator: Annotated[str | None, typer.Option(help="rules: escalations answered and a named blocker lifted "
                                                      "(docs/operator.md); off by default.")] = None,
) -> None:
    """Run models × conditions × tasks × seeds; finished runs are skipped, cut-short runs redone."""
    from impasse.models.config import ENV_NAME
    from impasse.runs.executors import EXECUTORS
    from impasse.runs.matrix import MatrixError, MatrixSpec, load_matrix_file, run_matrix, split
    if file:
        must_exist([file], "matrix file")
    try:
        if file:
            spec = load_matrix_file(file)
        elif models:
            spec = MatrixSpec(models_from_flags(split(models), model_arg or []), split(conditions), split(tasks),
                              seeds=seeds, budget=budget, gate=gate, report_duty=report_duty,
                              tool_timeout=tool_timeout)
        else:
            raise MatrixError("give --models (or --file)")
        if model_arg and file:
            raise MatrixError("--model-arg goes with --models; in a matrix file, give each model its settings")
        spec.base_url = base_url or spec.base_url
        spec.key_env = key_env or spec.key_env
        if spec.key_env and not ENV_NAME.fullmatch(spec.key_env):
            raise MatrixError(f"--key-env {spec.key_env!r} is not an environment variable name")
        spec.split = generated or spec.split
        spec.workers = workers or spec.workers
        spec.executor = executor or spec.executor
        if spec.executor not in EXECUTORS:
            raise MatrixError(f"unknown executor {spec.executor!r}: use {' or '.join(EXECUTORS)}")
        if spec.executor == "ray" and importlib.util.find_spec("ray") is None:
            raise MatrixError("--executor ray needs Ray: pip install 'impasse[ray]'")
        spec.out = out_dir or spec.out
        spec.cost_limit = spec.cost_limit if cost_limit is None else cost_limit
        spec.spend_cap = spec.spend_cap if spend_cap is None else spend_cap
        spec.breaker = breaker or spec.breaker
        spec.prices = prices or spec.prices
        spec.history = history_or_refuse(history) if history else spec.history
        spec.agents = split(agents) if agents else spec.agents
        spec.operator = operator or spec.operator
    except MatrixError as err:
        raise fail(str(err), code=2) from None
    if spec.prices:
        must_exist([spec.prices], "price table")
    refuse_what_cannot_run(spec)
    install_or_fail(spec.agents)
    preflight_or_fail(spec.endpoints(), spec.model_timeout)
    must_be_writable(spec.out, "--out", folder=True)
    api = docker_client(threads=spec.workers)
    signal.signal(signal.SIGTERM, lambda *_: (_ for _ in ()).throw(KeyboardInterrupt()))
    started = time.monotonic()
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
               TextColumn("running {task.fields[running]} · failed {task.fields[failed]} · skipped "
                          "{task.fields[skipped]}"), TimeElapsedColumn(), TimeRemainingColumn())
    with Progress(*columns, console=console) as bar:
        task = bar.add_task("matrix", total=None, running=0, failed=0, skipped=0)

        def update(progress, last: str) -> None:
            bar.update(task, total=progress.total - progress.skipped, completed=progress.done + progress.failed,
                       running=progress.running, failed=progress.failed, skipped=progress.skipped)
        try:
            result = run_matrix(api, spec, update, log=dim)
        except MatrixError as err:
            raise fail(str(err)) from None
        except KeyboardInterrupt:
            raise fail("interrupted: finished runs are kept; start again to resume", code=130) from None
    shares = ", ".join(f"{k} {v}" for k, v in sorted(result.outcomes.items()))
    out.print(f"{result.total} runs planned, {result.skipped} already done, {result.done} run now, "
              f"{result.failed} failed, {result.held} held, in {time.monotonic() - started:.0f}s; {shares}",
              highlight=False)
    for reason, count in result.held_because.items():
        out.print(f"held {count} runs: {reason}; start the matrix again to run them", highlight=False)
    if result.failed or result.tripped:
        raise typer.Exit(1)


def history_or_refuse(value: str) -> str:
    from impasse.episode.history import History, HistoryError
    from impasse.runs.matrix import MatrixError
    try:
        return History.parse(value).label
    except HistoryError as err:
        raise MatrixError(str(err)) from None


def models_from_flags(specs: list[str], args: list[str]):
    return [model_config_or_fail(spec, args, None, None) for spec in specs]


def refuse_what_cannot_run(spec) -> None:
    """Exit 2, before Docker is touched, for a model spec that cannot work or an unknown condition
    or task; exit 1 when a card or task file itself is broken."""
    from impasse.catalog.schema import DocumentError
    from impasse.models import ModelSpecError, check_spec
    from impasse.models.pricing import PriceTable, PriceTableError
    from impasse.runs.matrix import MatrixError, not_planned, plan
    try:
        table = PriceTable.load(spec.prices)
        for model in spec.endpoints():
            check_spec(model.spec, model.base_url, model.key_env)
            price = table.price(model.spec, model.price)  # a malformed `price:` is refused here
            if (spec.cost_limit is not None or spec.spend_cap is not None) and price is None:
                raise MatrixError(f"{model.label}: a cost limit or spend cap needs a price, and the price table has "
                                  f"none for {model.spec}: give one (--prices FILE, or `price:` for the model)")
        plan(spec)  # unknown conditions and tasks, as the matrix itself would refuse them (no Docker)
        for why in not_planned(spec):
            console.print(f"[dim]not planned: {why}[/]", highlight=False)
    except (ModelSpecError, MatrixError, PriceTableError) as err:
        raise fail(str(err), code=2) from None
    except DocumentError as err:
        raise fail(str(err)) from None
