"""The `impasse` command line. Each command is a thin shell over a module that does one job."""

from __future__ import annotations

import sys
import time
from typing import Annotated

import typer

from impasse import cli_cards, cli_tasks, engine
from impasse.cli_common import console, docker_client, fail, out

app = typer.Typer(no_args_is_help=True, add_completion=False, pretty_exceptions_enable=False,
                  help="impasse: what coding agents do when the environment makes the task impossible.")
engine_app = typer.Typer(no_args_is_help=True, help="The Docker engine impasse runs on.")
images_app = typer.Typer(no_args_is_help=True, help="Build the layered, content-hashed images.")
app.add_typer(engine_app, name="engine")
app.add_typer(images_app, name="images")
app.add_typer(cli_tasks.app, name="tasks")
app.add_typer(cli_cards.app, name="cards")


@engine_app.command("up")
def engine_up() -> None:
    """Make sure Docker answers: install and start dockerd when root on Debian, else explain."""
    try:
        status = engine.ensure_engine(log=lambda m: console.print(f"[dim]{m}[/]"))
    except engine.EngineUnavailable as err:
        raise fail(str(err), code=2) from None
    out.print(f"docker engine {status.server_version} is up")


@images_app.command("build")
def images_build(
    task: Annotated[list[str] | None, typer.Option(help="Only these tasks (default: all).")] = None,
) -> None:
    """Build the base image and every task and condition layer (cached by content hash)."""
    from impasse import images
    from impasse.builder import build_all
    api = docker_client()
    started = time.monotonic()
    try:
        built = build_all(api, task_ids=task, log=lambda m: console.print(f"[dim]{m}[/]"))
    except images.ImageBuildError as err:
        raise fail(str(err)) from None
    except KeyboardInterrupt:
        raise fail("interrupted; no partial image was tagged", code=130) from None
    for ref in built:
        out.print(ref)
    console.print(f"[green]{len(built)} images ready in {time.monotonic() - started:.1f}s[/]")


@app.command()
def doctor() -> None:
    """Check the engine, the images and the disk, and say what to do about each red line."""
    from impasse.doctor import run_checks, show
    checks = run_checks()
    show(checks, out)
    if any(not c.ok for c in checks):
        raise typer.Exit(1)


@app.command()
def gc() -> None:
    """Remove every container and network impasse created (label impasse=1)."""
    from impasse.sandbox import reap
    containers, networks = reap(docker_client())
    out.print(f"removed {containers} containers and {networks} networks")


def main() -> None:  # pragma: no cover - console entry for `python -m impasse`
    sys.exit(app())
