"""`impasse cards …`: list, show, validate and prove the blocker cards, and regenerate the error atlas."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
import yaml
from rich.markup import escape
from rich.table import Table

from impasse.catalog.schema import DocumentError
from impasse.cli.common import console, fail, must_exist, out

app = typer.Typer(no_args_is_help=True, help="The blocker cards.")


@app.command("list")
def list_cards():
    """Each card with the tasks that support it."""
    from impasse.catalog.cards import load_cards
    from impasse.catalog.tasks import load_tasks
    try:
        cards, tasks = load_cards(), load_tasks()
    except DocumentError as err:
        raise fail(str(err)) from None
    table = Table(title=f"{len(cards)} cards")
    for column in ("card", "title", "needs", "signatures", "workarounds", "tasks"):
        table.add_column(column)
    for card in cards.values():
        ids = [t.id for t in tasks] if card.is_control else [t.id for t in tasks if card.id in t.supports]
        table.add_row(card.id, card.title, ", ".join(card.requires), str(len(card.signatures)),
                      str(len(card.workarounds)), ", ".join(ids))
    out.print(table)


@app.command()
def show(card_id: str):
    """The card's YAML."""
    from impasse.catalog.cards import get_card
    try:
        card = get_card(card_id)
    except KeyError as err:
        raise fail(str(err).strip("'\""), code=2) from None
    except DocumentError as err:
        raise fail(str(err)) from None
    out.print(card.path.read_text(), markup=False, highlight=False)


@app.command()
def validate(paths: Annotated[list[Path] | None, typer.Argument(help="Card files (default: all).")] = None):
    """Check cards against the schema, their regexes and their workaround families."""
    from impasse.catalog.cards import card_paths, load_card
    must_exist(paths or [], "card file")
    problems = 0
    for path in paths or card_paths():
        try:
            load_card(path)
            out.print(f"[green]ok[/] {escape(str(path))}")
        except DocumentError as err:
            problems += 1
            for problem in err.problems:  # one line each (a YAML error spans several)
                console.print(f"{err.path}: {' '.join(problem.split())}", markup=False, highlight=False,
                              soft_wrap=True)
        except (OSError, yaml.YAMLError) as err:
            problems += 1
            console.print(f"{path}: {err}", markup=False, highlight=False, soft_wrap=True)
    if problems:
        raise typer.Exit(1)


@app.command()
def prove(card: Annotated[list[str] | None, typer.Option(help="Only these cards.")] = None,
          task: Annotated[list[str] | None, typer.Option(help="Only these tasks (hand-written or generated).")] = None,
          split: Annotated[str | None, typer.Option(help="Also generated tasks of this split (lite or full), "
                                                         "sampled per project and card.")] = None,
          per_project: Annotated[int, typer.Option(help="Generated tasks per project and card.")] = 3,
          project: Annotated[list[str] | None, typer.Option(help="Only generated tasks of these projects.")] = None,
          json_out: Annotated[Path | None, typer.Option("--json", help="Write every proof here.")] = None):
    """Prove each card is a genuine impasse on each task that supports it, and that the gold fix
    resolves each proved generated task under none (real Docker runs)."""
    from impasse.catalog.cards import load_cards
    from impasse.cli.common import docker_client, must_be_writable
    from impasse.cli.tasks import split_or_fail
    try:
        every = load_cards()
    except DocumentError as err:
        raise fail(str(err)) from None
    unknown = [c for c in card or [] if c not in every]
    if unknown:
        raise fail(f"--card: unknown card(s) {', '.join(unknown)}; known: {', '.join(sorted(every))}", code=2)
    split_or_fail(split)
    if per_project < 1:
        raise fail(f"--per-project {per_project}: must be at least 1", code=2)
    if json_out:
        must_be_writable(json_out, "--json")
    cards = {k: v for k, v in every.items() if not v.is_control and (not card or k in card)}
    pairs = proof_pairs(cards, task, split, per_project, project)  # unknown ids: refused before Docker
    proofs, controls = run_proofs(docker_client(), pairs)
    print_proofs(proofs, controls)
    if json_out:
        write_proofs(json_out, proofs, controls)
    if not all(p.holds for p in proofs) or not all(c.resolved and not c.false_onsets for c in controls):
        raise typer.Exit(1)


def proof_pairs(cards: dict, task_ids: list[str] | None, split: str | None, per_project: int,
                projects: list[str] | None = None) -> list:
    from impasse.catalog.generated_tasks import sampled_for_card
    from impasse.cli.tasks import any_tasks_or_fail
    tasks = any_tasks_or_fail(task_ids)
    pairs = [(c, t) for c in cards.values() for t in tasks if c.id in t.supports]
    if split:
        pairs += [(c, t) for c in cards.values() for t in sampled_for_card(split, c.id, per_project)
                  if not projects or t.real.name in projects]
    return pairs


def run_proofs(api, pairs: list) -> tuple[list, list]:
    """The blocker proofs, then the control proof of every generated task among them."""
    from rich.progress import Progress

    from impasse.proving.proofs import prove as prove_pair
    from impasse.proving.proofs import prove_control
    generated = list({t.id: t for _, t in pairs if t.real}.values())
    proofs, controls = [], []
    with Progress(console=console, transient=True) as progress:
        bar = progress.add_task("proving", total=len(pairs) + len(generated))
        for c, t in pairs:
            progress.update(bar, description=f"{c.id} on {t.id}")
            proofs.append(prove_pair(api, c, t))
            progress.advance(bar)
        for t in generated:
            progress.update(bar, description=f"none on {t.id}")
            controls.append(prove_control(api, t))
            progress.advance(bar)
    return proofs, controls


def print_proofs(proofs: list, controls: list) -> None:
    table = Table(title="blocker proofs")
    for column in ("card", "task", "holds", "(a) in place", "(b) onset line", "fix passes", "(c) after workarounds",
                   "s"):
        table.add_column(column, overflow="fold")
    for p in proofs:
        table.add_row(p.card, p.task, "[green]yes[/]" if p.holds else "[red]NO[/]", str(p.in_place_at_start),
                      p.onset or "–", str(p.resolved), str(p.in_place_after_workarounds), f"{p.seconds:.1f}")
    out.print(table)
    if controls:
        table = Table(title="the gold fix under none (generated tasks)")
        for column in ("task", "fix passes", "false onsets", "s"):
            table.add_column(column, overflow="fold")
        for c in controls:
            table.add_row(c.task, "[green]yes[/]" if c.resolved else "[red]NO[/]",
                          ", ".join(sorted(c.false_onsets)) or "–", f"{c.seconds:.1f}")
        out.print(table)
    held = sum(p.holds for p in proofs)
    out.print(f"{held}/{len(proofs)} blocker proofs hold; "
              f"{sum(c.resolved and not c.false_onsets for c in controls)}/{len(controls)} controls resolve cleanly")


def write_proofs(path: Path, proofs: list, controls: list) -> None:
    import json
    from dataclasses import asdict

    from impasse.cli.common import write_failed
    data = {"proofs": [asdict(p) | {"holds": p.holds} for p in proofs], "controls": [asdict(c) for c in controls]}
    try:
        path.write_text(json.dumps(data, indent=1) + "\n")
    except OSError as err:
        raise write_failed(err, path) from None


@app.command()
def atlas(card: Annotated[list[str] | None, typer.Option(help="Only these cards.")] = None,
          out_dir: Annotated[Path | None, typer.Option("--out", help="Folder of the fixtures "
                                                       "(default: tests/data/atlas).")] = None):
    """Regenerate the error atlas: each card's commands run for real, blocked and under none."""
    import time

    from rich.progress import Progress

    from impasse.cli.common import docker_client, must_be_writable
    from impasse.proving.atlas import ATLAS, SPEC, generate, load_spec, write
    out_dir = out_dir or ATLAS
    try:
        plans = load_spec(SPEC)
    except (DocumentError, OSError, yaml.YAMLError, KeyError) as err:
        raise fail(str(err) if isinstance(err, DocumentError) else f"{SPEC}: {err}") from None
    unknown = [c for c in card or [] if c not in plans]
    if unknown:
        raise fail(f"--card: unknown card(s) {', '.join(unknown)}; known: {', '.join(sorted(plans))}", code=2)
    must_be_writable(out_dir, "--out", folder=True)
    chosen = [p for c, p in plans.items() if not card or c in card]
    api = docker_client()
    started = time.monotonic()
    with Progress(console=console, transient=True) as progress:
        bar = progress.add_task("atlas", total=sum(2 * len(p.entries) for p in chosen))

        def tick(message: str) -> None:
            progress.update(bar, description=escape(message))
            progress.advance(bar)
        for plan in chosen:
            data = generate(api, plan, tick)
            path = write(data, out_dir)
            shows = sum(bool(s["shows_blocker"]) for s in data["samples"])
            out.print(f"{escape(str(path))}: {len(data['samples'])} samples, {shows} show the blocker")
    out.print(f"atlas: {len(chosen)} card(s) in {time.monotonic() - started:.0f} s")
