"""What every CLI module shares: the consoles, a clean failure, and a client on a live engine."""

from __future__ import annotations

import typer
from rich.console import Console
from rich.markup import escape

from impasse.infra import engine

console = Console(stderr=True)
# Tables are wide; when stdout is a pipe or a CI log rich would assume 80 columns.
out = Console(width=None if Console().is_terminal else 180)


def fail(message: str, code: int = 1) -> typer.Exit:
    """Print a clear error (paths unbroken, brackets literal) and return the exit to raise."""
    console.print(f"[bold red]error:[/] {escape(message)}", highlight=False, soft_wrap=True)
    return typer.Exit(code)


def dim(message: str) -> None:
    console.print(f"[dim]{message}[/]", highlight=False)


def docker_client():
    """A client on a reachable engine, or exit 2 with the how-to (never a traceback)."""
    try:
        engine.ensure_engine(log=dim)
    except engine.EngineUnavailable as err:
        raise fail(str(err), code=2) from None
    from impasse.infra import images
    return images.client()
