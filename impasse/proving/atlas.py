"""The error atlas: what an agent really sees when it takes the natural next step under a blocker.

For each blocker card, the commands of `tests/data/atlas/commands.yaml` run for real, as the agent
and through the same exec path as an episode (the persistent channel, the card's injector), in a
container of the card × task condition and again in one of `none`. The outputs become fixtures
(`<card>.json`) that hold the cards' signatures to real tool output: every blocked output that
shows the blocker must give an onset, and no `none` output may give one for any card."""

from __future__ import annotations

import datetime
import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import docker

from impasse.analysis.compiled_card import compile_card
from impasse.analysis.normal_form import Action, NStep, obs_from_dict
from impasse.analysis.onsets import lone_onset
from impasse.catalog.cards import Card, load_cards
from impasse.catalog.conditions import Condition, make_condition
from impasse.catalog.schema import read_yaml
from impasse.catalog.tasks import Task, load_task_by_id
from impasse.episode.rundir import write_json_atomic
from impasse.episode.tools import agent_executor
from impasse.infra.environment import open_environment
from impasse.infra.injectors import make_injector
from impasse.infra.layers import stage
from impasse.models.turns import ToolCall
from impasse.paths import ROOT
from impasse.vocabulary import Tool

ATLAS = ROOT / "tests" / "data" / "atlas"
SPEC = ATLAS / "commands.yaml"
TAIL = 4000  # characters of each output kept: the end, where the error is
TIMEOUT = 90  # seconds per command
SEED = 0  # the injector's seed (flaky_sandbox): which non-test commands are hit
VERSIONS = {  # tool -> the command that prints its version (run as the agent, outside the injector)
    "os": ". /etc/os-release && echo \"$PRETTY_NAME\"",
    "bash": "bash --version | head -1",
    "python": "python3 --version",
    "pytest": "python3 -m pytest --version 2>&1 | head -1",
    "git": "git --version",
    "curl": "curl --version | head -1",
    "openssl": "openssl version",
    "sqlite3": "sqlite3 --version | cut -d' ' -f1",
    "jq": "jq --version",
    "coreutils": "ls --version | head -1",
    "wget": "wget --version | head -1",
    "pip": "python3 -m pip --version",
}

Progress = Callable[[str], None]


@dataclass(frozen=True)
class Entry:
    command: str
    shows: bool | None  # does the blocked output show the blocker? (read and decided by a person)
    none_fires: tuple[str, ...] = ()  # cards known to fire on the `none` output (see commands.yaml)
    note: str = ""


@dataclass(frozen=True)
class Plan:
    card: str
    task: str
    entries: tuple[Entry, ...]


def load_spec(path: Path = SPEC) -> dict[str, Plan]:
    data = read_yaml(path)
    return {card: Plan(card, body["task"], tuple(
        Entry(e["run"].rstrip("\n"), e.get("shows"), tuple(e.get("none_fires", [])), e.get("note", ""))
        for e in body["commands"])) for card, body in data.items()}


def tail(text: str, limit: int = TAIL) -> str:
    return text if len(text) <= limit else text[-limit:]


def tool_versions(box) -> dict[str, str | None]:
    versions = {}
    for tool, command in VERSIONS.items():
        result = box.exec(f"set -o pipefail; {command}", timeout=30)  # a missing tool fails the pipe
        line = result.output.strip().splitlines()[0] if result.output.strip() else ""
        versions[tool] = line if result.exit_code == 0 and line else None  # None: not installed
    return versions


def run_side(api: docker.DockerClient, condition: Condition, commands: list[str], tick: Progress,
             seed: int = SEED) -> tuple[str, dict, list[dict]]:
    """Every command in one environment of the condition, in order; (image, versions, results)."""
    staged = stage(api, condition)
    labels = {"impasse.run_id": f"atlas-{condition.card.id}-{condition.task.id}"}
    with open_environment(api, staged, labels) as env:
        versions = tool_versions(env.box)
        with agent_executor(env.box, make_injector(condition, env.box, seed), TIMEOUT) as executor:
            results = []
            for i, command in enumerate(commands):
                tick(f"{condition.card.id}: {command.splitlines()[0][:50]}")
                obs = executor.run(ToolCall(f"atlas{i}", Tool.BASH, {"command": command}))
                results.append({"output": tail(obs.output), "exit_code": obs.exit_code,
                                "timed_out": obs.timed_out, "injected": obs.injected, "sensors": obs.sensors})
    return staged.image, versions, results


def generate(api: docker.DockerClient, plan: Plan, tick: Progress = lambda m: None) -> dict:
    cards, task = load_cards(), load_task_by_id(plan.task)
    commands = [e.command for e in plan.entries]
    image, versions, blocked = run_side(api, make_condition(task, cards[plan.card]), commands, tick)
    none_image, none_versions, control = run_side(api, make_condition(task, cards["none"]), commands, tick)
    samples = []
    for entry, b, n in zip(plan.entries, blocked, control, strict=True):
        n = {k: v for k, v in n.items() if k != "injected"}
        sample = {"command": entry.command, "shows_blocker": entry.shows, "blocked": b, "none": n}
        if entry.none_fires:
            sample["none_fires"] = list(entry.none_fires)
        if entry.note:
            sample["note"] = entry.note
        samples.append(sample)
    return {"card": plan.card, "task": plan.task,
            "generated_at": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
            "docker_version": api.version().get("Version"), "image": image, "none_image": none_image,
            # a tool the card took away (jq under missing_binary) is read from the control
            "tool_versions": {k: v or none_versions.get(k) for k, v in versions.items()},
            "samples": samples}


def write(atlas: dict, out: Path) -> Path:
    out.mkdir(parents=True, exist_ok=True)
    path = out / f"{atlas['card']}.json"
    write_json_atomic(path, atlas, indent=1)
    return path


def load_atlas(folder: Path = ATLAS) -> dict[str, dict]:
    return {p.stem: json.loads(p.read_text(encoding="utf-8")) for p in sorted(folder.glob("*.json"))}


# --- matching a stored output as an annotation of impasse's own run would -------------------------

def onset(card: Card, task: Task, command: str, side: dict) -> str | None:
    """The line a signature of `card` matches in this output (the card compiled with what this
    task × card condition injects, as a run of it would), or None."""
    compiled = compile_card(card, Condition(task, card).injected)
    match = lone_onset(compiled, NStep(1, "", [Action(Tool.BASH, command=command)], [obs_from_dict(side)]))
    return match.line if match else None


def false_onsets(task: Task, command: str, side: dict) -> dict[str, str]:
    """Every blocker card of this task whose signatures fire on this (control) output: card ->
    matched line. Only the cards the task supports: no run compiles another card with its names."""
    found = {}
    for card in load_cards().values():
        if card.id in task.supports:
            line = onset(card, task, command, side)
            if line is not None:
                found[card.id] = line
    return found


def summary(atlas: dict[str, dict]) -> list[dict]:
    """Per card: samples, blocked outputs showing the blocker, of those the ones that exit 0."""
    rows = []
    for card_id, data in sorted(atlas.items()):
        samples = data["samples"]
        shows = [s for s in samples if s["shows_blocker"]]
        rows.append({"card": card_id, "task": data["task"], "samples": len(samples), "shows": len(shows),
                     "masked": sum(s["blocked"]["exit_code"] == 0 for s in shows),
                     "none": sum(1 for s in samples if s.get("none"))})
    return rows
