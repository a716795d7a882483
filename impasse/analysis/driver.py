"""From paths to annotations: find the trajectories, read each in its format, pick its card,
annotate. A file that cannot be read is reported with its name and line and skipped; the others
are still annotated."""

from __future__ import annotations

import gc
from collections.abc import Callable
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from impasse.analysis.compiled_card import compile_card
from impasse.analysis.discovery import FOREIGN_JSON, Discovery
from impasse.analysis.discovery import discover as find_sessions
from impasse.analysis.importers import ImportProblem, load_sessions
from impasse.analysis.incidents import TIMELY_STEPS, Incident, incident_of, own_run_log
from impasse.analysis.metrics import Annotation, annotate
from impasse.analysis.normal_form import NTrajectory
from impasse.analysis.operator_runs import operator_row
from impasse.analysis.own_runs import plain_label, to_trajectory
from impasse.analysis.self_caused import local_names
from impasse.catalog.cards import SPECIFICITY, Card, Injected, load_cards
from impasse.catalog.schema import DocumentError
from impasse.episode.run_record import RunRecord
from impasse.episode.rundir import TrajectoryError, read_run


@dataclass
class Batch:
    annotations: list[Annotation] = field(default_factory=list)
    records: dict[str, RunRecord] = field(default_factory=dict)  # impasse's own runs, by run id, read once
    skipped: list[str] = field(default_factory=list)  # one message per path that was not annotated
    warnings: list[str] = field(default_factory=list)
    incidents: list[Incident] = field(default_factory=list)  # one per annotation, in the same order
    discovery: Discovery = field(default_factory=Discovery)  # what was found, and what was passed over
    timely: int = TIMELY_STEPS  # told within this many steps of the wall counts as timely


def discover(paths: list[Path]) -> list[tuple[Path, str]]:
    """(path, 'ours'|'foreign') for every trajectory below the given paths (discovery.py)."""
    return find_sessions(paths).found


def cards_for(trajectory: NTrajectory, card_option: str | None, cards: dict[str, Card]) -> list[Card]:
    # A foreign log names no card: every card is tried unless one is given.
    chosen = card_option or trajectory.condition or ("auto" if trajectory.source != "impasse" else None)
    if chosen is None:
        raise ImportProblem(f"{trajectory.path}: a foreign trajectory carries no card; "
                            "give --card ID (or --card auto)")
    if chosen == "auto":
        return auto_cards(cards)
    if chosen not in cards:
        raise ImportProblem(f"{trajectory.path}: unknown card {chosen!r}; known: {', '.join(sorted(cards))}")
    return [cards[chosen]]


def auto_cards(cards: dict[str, Card]) -> list[Card]:
    """The cards `--card auto` tries: every blocker card."""
    return [c for c in cards.values() if not c.is_control]


def annotate_auto(trajectory: NTrajectory, candidates: list[Card]) -> list[Annotation]:
    """One answer per trajectory: the card whose blocker showed first (ties go to the more specific
    card), with its category and evidence; or one never-hit row when none showed."""
    return first_onset(trajectory, candidates, annotate_each(trajectory, candidates))


def annotate_each(trajectory: NTrajectory, candidates: list[Card]) -> list[tuple[Card, Annotation]]:
    """Every candidate's annotation, the most specific card first (the order first_onset breaks
    ties in). Leaves the trajectory's condition at the last card tried, as annotate_auto always has."""
    rank = {card_id: i for i, card_id in enumerate(SPECIFICITY)}
    each, locals_ = [], local_names(trajectory) if candidates else set()  # foreign cards all: read once
    for card in sorted(candidates, key=lambda c: rank.get(c.id, len(rank))):
        trajectory.condition = card.id
        each.append((card, annotate(trajectory, compile_card(card, None), locals_, whole=False)))
    # Only the card whose blocker showed first is kept: it alone is annotated whole.
    shown = [i for i, (_, result) in enumerate(each) if result.row.t_star is not None]
    if shown:
        first = min(shown, key=lambda i: (each[i][1].row.t_star, i))
        card, last = each[first][0], trajectory.condition
        trajectory.condition = card.id
        each[first] = (card, annotate(trajectory, compile_card(card, None), locals_))
        trajectory.condition = last
    return each


def first_onset(trajectory: NTrajectory, candidates: list[Card],
                each: list[tuple[Card, Annotation]]) -> list[Annotation]:
    """annotate_auto's answer from annotate_each's annotations (so a caller that wants every card's
    too annotates once)."""
    best = None
    for card, result in each:
        if result.row.t_star is not None and (best is None or result.row.t_star < best.row.t_star):
            best = result
            best.evidence["category"] = card.category
    if best is not None:
        best.evidence["other_walls"] = other_walls(best, each)
        return [best]
    trajectory.condition = None
    if not candidates:
        return []
    never = annotate(trajectory, compile_card(candidates[0], None))
    never.evidence["category"] = "none"
    return [never]


def other_walls(best: Annotation, each: list[tuple[Card, Annotation]]) -> list[dict]:
    """The walls of other kinds the session also met (each at or after the first): what the agent
    tells the human about may be any of them ("could not run the tests: Docker is not running")."""
    walls = {}
    for card, result in each:
        onset = result.evidence.get("t_star") or {}
        if result is not best and result.row.t_star is not None and card.category != best.evidence["category"]:
            walls.setdefault((card.category, onset.get("name")), None)
    return [{"category": category, "name": name} for category, name in walls]


@contextmanager
def collector_paused():
    """Reading a corpus makes millions of small dicts and objects that form no cycles; reference
    counting frees them, and the cyclic collector's repeated passes over them only cost time
    (about a tenth of annotating)."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def annotate_paths(paths: list[Path], fmt: str = "auto", card: str | None = None,
                   progress: Callable[[int, int], None] | None = None, timely: int = TIMELY_STEPS) -> Batch:
    """`progress(done, total)` is called after each session found; `timely`: told within that many
    steps of the wall counts as timely."""
    with collector_paused():
        return annotate_all(paths, fmt, card, progress, timely)


def annotate_all(paths: list[Path], fmt: str, card: str | None, progress=None, timely: int = TIMELY_STEPS) -> Batch:
    batch = Batch(timely=timely)
    try:
        cards = load_cards()
    except DocumentError as err:
        batch.skipped.append(str(err))
        return batch
    batch.discovery = find_sessions(paths)
    batch.skipped.extend(batch.discovery.unreadable)
    found = batch.discovery.found
    for number, (path, kind) in enumerate(found, 1):
        try:
            annotate_one(batch, path, kind, fmt, card, cards)
        except ImportProblem as err:
            if kind == "found" and is_foreign_format(err):
                batch.discovery.pass_over(path, FOREIGN_JSON)  # a file beside the sessions, of another tool's
            else:
                batch.skipped.append(str(err))
        except (TrajectoryError, OSError) as err:
            batch.skipped.append(str(err))
        if progress is not None:
            progress(number, len(found))
    drop_doubles(batch)
    attach_costs(batch)
    attach_operator(batch)
    return batch


def annotate_one(batch: Batch, path: Path, kind: str, fmt: str, card: str | None, cards: dict[str, Card]) -> None:
    if kind == "ours" and fmt in ("auto", "impasse"):
        record = read_run(path)
        batch.records[record.run_id] = record
        trajectory = to_trajectory(record)
        trajectory.log, price = own_run_log(record, trajectory.length)
        annotate_trajectory(batch, trajectory, card, cards, price)
        return
    for trajectory in load_sessions(path, fmt):  # an evaluation's output holds many
        annotate_trajectory(batch, trajectory, card, cards, None)


def annotate_trajectory(batch: Batch, trajectory: NTrajectory, card: str | None, cards: dict[str, Card],
                        price) -> None:
    path = trajectory.path
    batch.warnings.extend(trajectory.problems)
    candidates = cards_for(trajectory, card, cards)
    if not trajectory.steps:
        batch.warnings.append(f"{path}: no agent step (the run ended before its first); annotated with 0 steps")
    if card == "auto" or (card is None and trajectory.source != "impasse"):
        made = annotate_auto(trajectory, candidates)
    else:
        if card:
            trajectory.condition = card
        injected = Injected(**{k: tuple(v) for k, v in trajectory.injected.items()}) \
            if trajectory.source == "impasse" and not card else None
        made = [annotate(trajectory, compile_card(candidates[0], injected))]
    batch.annotations.extend(made)
    for annotation in made:
        known = cards.get(annotation.row.condition or "")
        batch.incidents.append(incident_of(trajectory, annotation, compile_card(known, None) if known else None, price,
                                           batch.timely))


# A log that says less of a session another log found beside it holds in whole: Gemini CLI's
# stream-json stdout (no status for most commands) beside the session file it was run with.
LESSER_LOGS = {"gemini-stream": "gemini-cli"}
DOUBLE = "the stdout of a session read from its own session file"


def drop_doubles(batch: Batch) -> None:
    """Each session once: a lesser log of a session whose fuller log was found too is passed over."""
    fuller = {(a.source, a.row.run_id) for a in batch.annotations}
    doubles = [i for i in batch.incidents
               if i.agent in LESSER_LOGS and (LESSER_LOGS[i.agent], i.annotation.row.run_id) in fuller]
    for incident in doubles:
        batch.discovery.pass_over(Path(incident.path), DOUBLE)
    gone = {id(i.annotation) for i in doubles}
    batch.annotations = [a for a in batch.annotations if id(a) not in gone]
    batch.incidents = [i for i in batch.incidents if id(i.annotation) not in gone]


def is_foreign_format(err: ImportProblem) -> bool:
    """The reader's word for a document that is no trajectory of any format it knows."""
    return "unknown" in str(err) and "format" in str(err) or "not a trajectory" in str(err)


def attach_costs(batch: Batch) -> None:
    """Each of our runs carries the cost its result.json recorded (`cost`); a foreign run has none."""
    for annotation in batch.annotations:
        record = batch.records.get(annotation.row.run_id) if annotation.source == "impasse" else None
        cost = record.result.cost if record is not None and record.result is not None else None
        annotation.cost = cost if isinstance(cost, dict) else None


def attach_operator(batch: Batch) -> None:
    """Each of our runs made with the operator carries what it recorded (`operator`); others None."""
    for annotation in batch.annotations:
        record = batch.records.get(annotation.row.run_id) if annotation.source == "impasse" else None
        if record is not None:
            annotation.operator = operator_row(record, plain_label(record.meta))
