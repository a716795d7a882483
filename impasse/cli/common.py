"""What every CLI module shares: the consoles, a clean failure, checks of the paths a command is
given, and a client on a live engine.

Exit codes: 2 for a request that cannot work (bad arguments, unknown ids, a path that does not
exist, an output that cannot be written, a model spec that cannot work), 1 for work that failed
(a file that exists but cannot be read or is not what it should be, a run that errored)."""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

import typer
from rich.console import Console
from rich.markup import escape

from impasse.infra import engine

console = Console(stderr=True, emoji=False)  # `openai:m` must not print as an emoji
# Tables are wide; when stdout is a pipe or a CI log rich would assume 80 columns.
out = Console(width=None if Console().is_terminal else 180, emoji=False)


def fail(message: str, code: int = 1) -> typer.Exit:
    """Print a clear error (paths unbroken, brackets literal) and return the exit to raise."""
    console.print(f"[bold red]error:[/] {escape(message)}", highlight=False, soft_wrap=True)
    return typer.Exit(code)


def dim(message: str) -> None:
    console.print(f"[dim]{message}[/]", highlight=False)


def must_exist(paths: Iterable[Path], what: str = "file or folder") -> None:
    """Exit 2 naming every given path that does not exist."""
    missing = [str(p) for p in paths if not p.exists()]
    if missing:
        raise fail(f"no such {what}: {', '.join(missing)}", code=2)


def folder_problem(folder: Path) -> str | None:
    """Why files cannot be written into this folder (made if missing), or None: it is made and a
    probe file written and removed, which is the only check that also holds for root."""
    if folder.exists() and not folder.is_dir():
        return f"{folder} is a file, not a folder"
    probe = folder / f".impasse-probe-{os.getpid()}"
    try:
        folder.mkdir(parents=True, exist_ok=True)
        probe.write_bytes(b"")
        probe.unlink()
    except OSError as err:
        return err.strerror or str(err)
    return None


def must_be_writable(path: Path, option: str, folder: bool = False) -> None:
    """Exit 2, before any work starts, when an output file (or folder) cannot be written."""
    if not folder and path.is_dir():
        raise fail(f"{option} {path}: is a folder, not a file", code=2)
    problem = folder_problem(path if folder else path.parent)
    if problem:
        raise fail(f"{option} {path}: cannot be written ({problem})", code=2)


def write_failed(err: OSError, path: Path | None) -> typer.Exit:
    """Exit 1 naming the output a write failed on (a full disk sets no file name: the path given)."""
    return fail(f"{err.filename or path}: cannot be written ({err.strerror or err})")


def docker_client(threads: int = 1):
    """A client on a reachable engine, or exit 2 with the how-to (never a traceback); `threads`
    calling it at once each keep a pooled connection (one extra for the progress and the reaper)."""
    try:
        engine.ensure_engine(log=dim)
    except engine.EngineUnavailable as err:
        raise fail(str(err), code=2) from None
    from impasse.infra import images
    return images.client(pool=max(16, threads + 1))
