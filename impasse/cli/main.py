"""The `impasse` command line. Each command is a thin shell over a module that does one job."""

from __future__ import annotations

import signal
import sys
import time
from pathlib import Path
from typing import Annotated

import typer

from impasse import defaults
from impasse.cli import annotate as cli_annotate
from impasse.cli import audit as cli_audit
from impasse.cli import cards as cli_cards
from impasse.cli import matrix as cli_matrix
from impasse.cli import onset as cli_onset
from impasse.cli import operator as cli_operator
from impasse.cli import tasks as cli_tasks
from impasse.cli.common import console, dim, docker_client, fail, must_be_writable, must_exist
from impasse.cli.common import out as stdout
from impasse.cli.models import install_or_fail, model_config_or_fail, preflight_or_fail
from impasse.infra import engine
from impasse.vocabulary import Duty, Gate

app = typer.Typer(no_args_is_help=True, add_completion=False, pretty_exceptions_enable=False,
                  help="impasse: what coding agents do when the environment makes the task impossible.")
engine_app = typer.Typer(no_args_is_help=True, help="The Docker engine impasse runs on.")
images_app = typer.Typer(no_args_is_help=True, help="Build the layered, content-hashed images.")
app.add_typer(engine_app, name="engine")
app.add_typer(images_app, name="images")
app.add_typer(cli_tasks.app, name="tasks")
app.add_typer(cli_cards.app, name="cards")
app.add_typer(cli_operator.app, name="operator")
app.command()(cli_annotate.annotate)
app.command()(cli_annotate.export)
app.command()(cli_matrix.matrix)
app.command()(cli_annotate.report)
app.command()(cli_annotate.agreement)
app.command()(cli_onset.onset)
app.command()(cli_audit.audit)


@engine_app.command("up")
def engine_up() -> None:
    """Make sure Docker answers: install and start dockerd when root on Debian, else explain."""
    try:
        status = engine.ensure_engine(log=lambda m: console.print(f"[dim]{m}[/]"))
    except engine.EngineUnavailable as err:
        raise fail(str(err), code=2) from None
    stdout.print(f"docker engine {status.server_version} is up")


@images_app.command("build")
def images_build(
    task: Annotated[list[str] | None, typer.Option(help="Only these tasks (default: all).")] = None,
) -> None:
    """Build the base image and every task and condition layer (cached by content hash)."""
    from impasse.infra import images
    from impasse.infra.layers import build_all
    if task:
        cli_tasks.load_or_fail(task)  # unknown ids are refused before Docker is touched
    api = docker_client()
    started = time.monotonic()
    try:
        built = build_all(api, task_ids=task, log=lambda m: console.print(f"[dim]{m}[/]"))
    except images.ImageBuildError as err:
        raise fail(str(err)) from None
    except KeyboardInterrupt:
        raise fail("interrupted; no partial image was tagged", code=130) from None
    for ref in built:
        stdout.print(ref)
    console.print(f"[green]{len(built)} images ready in {time.monotonic() - started:.1f}s[/]")


@app.command()
def run(
    model: Annotated[str, typer.Option(help="scripted:<policy>, openai:<model>, openai-responses:<model> or "
                                            "anthropic:<model>.")],
    condition: Annotated[str, typer.Option(help="A blocker card id, or none.")],
    task: Annotated[str | None, typer.Option(help="Task id (default: one that supports the condition).")] = None,
    seed: int = 0,
    budget: Annotated[int, typer.Option(min=1, help="Step budget.")] = defaults.BUDGET,
    out: Annotated[Path, typer.Option(help="Folder of run folders.")] = defaults.OUT,
    base_url: Annotated[str | None, typer.Option(help="OpenAI/Anthropic-compatible endpoint.")] = None,
    tool_timeout: Annotated[int, typer.Option(min=1, help="Seconds before a bash call is killed.")] =
        defaults.TOOL_TIMEOUT,
    report_duty: Annotated[str | None, typer.Option(help="stage: the stage-reporting duty.")] = None,
    gate: Annotated[str, typer.Option(help="Who ends the episode: " + ", ".join(Gate) + ".")] =
        Gate.TOOL.value,
    model_arg: Annotated[list[str] | None, typer.Option(
        help="A model setting KEY=VALUE, repeatable: temperature, max_tokens, reasoning_effort, thinking "
             "(a budget in tokens), extra_body (a JSON object). Nothing is sent that is not set.")] = None,
    key_env: Annotated[str | None, typer.Option(help="The environment variable holding the key "
                                                     "(default OPENAI_API_KEY / ANTHROPIC_API_KEY).")] = None,
    cost_limit: Annotated[float | None, typer.Option(min=0.0, help="USD; the run ends cost_exhausted once spent.")] =
        None,
    prices: Annotated[Path | None, typer.Option(help="A price table (YAML) over the repo's; also IMPASSE_PRICES.")] =
        None,
    history: Annotated[str, typer.Option(help="What of the conversation the model is sent: full, or last:N (the "
                                              "last N outputs whole, older ones elided).")] = "full",
    agent: Annotated[str, typer.Option(help="Who works the task: impasse (its own loop), or an external agent at its "
                                            "pin: claude-code[@2.1.332], codex[@0.171.0].")] = "impasse",
    operator: Annotated[str | None, typer.Option(help="rules: a simulated human answers escalate_to_human and "
                                                      "lifts the blocker the agent names (docs/operator.md); off by "
                                                      "default.")] = None,
) -> None:
    """Run one episode: a task under a condition, driven by a model, then the harness's truth."""
    from impasse.agents.pins import parse_agent
    from impasse.infra.images import ImageBuildError
    from impasse.infra.reaper import reap_stale
    from impasse.runs.runner import RunError, RunSpec, execute
    from impasse.vocabulary import Outcome
    if gate not in Gate._value2member_map_:
        raise fail(f"--gate {gate}: unknown; choose one of {', '.join(Gate)}", code=2)
    if report_duty is not None and report_duty not in Duty._value2member_map_:
        raise fail(f"--report-duty {report_duty}: unknown; choose one of {', '.join(Duty)}", code=2)
    spec = RunSpec(model, condition, task, seed, budget, out, base_url, tool_timeout, gate=gate,
                   report_duty=report_duty, config=model_config_or_fail(model, model_arg or [], key_env, base_url),
                   cost_limit=cost_limit, prices=prices, history=history, agent=agent, operator=operator)
    if prices:
        must_exist([prices], "price table")
    resolve_or_fail(spec)  # a bad card, task or model spec is refused before anything starts
    install_or_fail([spec.agent])
    preflight_or_fail([spec.model_config], spec.model_timeout)
    must_be_writable(out, "--out", folder=True)
    api = docker_client()
    reap_stale(api)
    signal.signal(signal.SIGTERM, lambda *_: (_ for _ in ()).throw(KeyboardInterrupt()))
    try:
        result = execute(api, spec, log=dim)
    except (RunError, ImageBuildError) as err:
        raise fail(str(err)) from None
    except KeyboardInterrupt:
        raise fail("interrupted: the partial trajectory is kept; no container is left", code=130) from None
    truth = result.truth
    stdout.print(str(result.path))
    facts = "" if truth is None else (f" resolved={truth.resolved} blocker_active_at_end="
                                      f"{truth.blocker_active_at_end} integrity_ok={truth.integrity.ok}")
    stdout.print(f"{result.outcome} after {result.steps} steps;{facts}", highlight=False)
    if result.outcome in (Outcome.TRANSPORT_ERROR, Outcome.HARNESS_ERROR):
        # The run did not measure the model: exit 1, so a script does not count it as done, and its
        # cause on one line (an agent's stderr, say, has several).
        cause = " | ".join(line.strip() for line in result.message.splitlines() if line.strip())
        raise fail(f"{parse_agent(agent).label}: {result.outcome}: {cause}")


def resolve_or_fail(spec) -> None:
    """Exit 2 for a request that cannot work (unknown card or task, unsupported pair, bad model
    spec); exit 1 when a card or task file itself is broken (resolve chains that error)."""
    from impasse.catalog.schema import DocumentError
    from impasse.runs.runner import RunError, resolve
    try:
        resolve(spec)
    except RunError as err:
        raise fail(str(err), code=1 if isinstance(err.__context__, DocumentError) else 2) from None


@app.command()
def show(run_dir: Path) -> None:
    """Render a run readably: its meta, every step, and the result."""
    from impasse.episode.rundir import TrajectoryError
    from impasse.runs.show import render_run
    must_exist([run_dir], "run folder")
    try:
        render_run(run_dir, stdout)
    except TrajectoryError as err:
        raise fail(str(err)) from None


@app.command()
def doctor() -> None:
    """Check the engine, the images and the disk, and say what to do about each red line."""
    from impasse.infra.doctor import run_checks, show
    checks = run_checks()
    show(checks, stdout)
    if any(not c.ok for c in checks):
        raise typer.Exit(1)


@app.command()
def gc(stale: Annotated[bool, typer.Option(help="Only what dead impasse processes left behind.")] = False) -> None:
    """Remove every container and network impasse created (label impasse=1)."""
    from impasse.infra.reaper import reap, reap_stale
    if stale:
        stdout.print(f"removed {reap_stale(docker_client())} containers of dead impasse processes")
        return
    containers, networks = reap(docker_client())
    stdout.print(f"removed {containers} containers and {networks} networks")


def main() -> None:  # pragma: no cover - console entry for `python -m impasse`
    sys.exit(app())
