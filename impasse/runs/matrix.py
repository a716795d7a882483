"""Matrix runs: models × conditions × tasks × seeds, in parallel, resumable and kill-safe.

A run id is a deterministic function of what defines the run, so a restarted matrix finds its
finished runs (they have result.json) and skips them, and redoes from scratch any run that was cut
short. Leftover containers of dead impasse processes are reaped on start. The runs themselves are
carried out by an executor (runs/executors.py): local threads by default."""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field, fields
from itertools import product
from pathlib import Path

import docker
import yaml

from impasse import defaults
from impasse.agents.compat import check_agent
from impasse.agents.pins import AGENTS, AgentSpec, AgentSpecError, parse_agent
from impasse.catalog.cards import load_cards
from impasse.catalog.conditions import make_condition
from impasse.catalog.generated import SPLITS
from impasse.catalog.generated_tasks import find_task, generated_tasks, tasks_of_split
from impasse.catalog.tasks import Task
from impasse.infra.reaper import reap_stale
from impasse.models import ModelSpecError
from impasse.models.config import ModelConfig, config_from_entry, refuse_duplicate_labels, with_endpoint
from impasse.operator.desk import MODES, check_operator
from impasse.runs.admission import BREAKER_AFTER, Admission
from impasse.runs.executors import EXECUTORS, make_executor
from impasse.runs.file_values import dollars, env_name, history_policy, member_of, positive, strict_bool
from impasse.runs.runner import RunSpec, run_id_for
from impasse.runs.seam import Planned, RunExecutor, finished_result
from impasse.vocabulary import Duty, Gate


class MatrixError(ValueError):
    pass


@dataclass
class MatrixSpec:
    """models × conditions × tasks × seeds, and every setting a single run takes (RunSpec's)."""

    models: list[ModelConfig]  # spec strings are read as models without settings
    conditions: list[str] | str = "all"
    tasks: list[str] | str = "all"
    seeds: int = defaults.SEEDS
    workers: int = defaults.WORKERS
    out: Path = defaults.OUT
    budget: int = defaults.BUDGET
    base_url: str | None = None
    key_env: str | None = None  # the variable holding the key of every model that names none
    tool_timeout: int = defaults.TOOL_TIMEOUT
    model_timeout: float = defaults.MODEL_TIMEOUT
    gate: Gate = Gate.TOOL
    report_duty: Duty | None = None
    channel: bool = True
    executor: str = "local"  # where the runs happen: runs/executors.py
    split: str | None = None  # generated tasks of this split (lite, full) beside the hand-written ones
    cost_limit: float | None = None  # USD per run: it ends cost_exhausted
    spend_cap: float | None = None  # USD over the whole matrix: once reached, no run starts
    breaker: int = BREAKER_AFTER  # consecutive transport errors from one model before its runs are held
    prices: Path | None = None  # a user's price table over the repo's
    history: str = "full"  # what of the conversation the model is sent (episode/history.py)
    agents: list[str] = field(default_factory=lambda: ["impasse"])  # who works the tasks: agents × models
    operator: str | None = None  # "rules": escalations answered, a named blocker lifted (impasse/operator/)

    def __post_init__(self) -> None:
        self.models = [m if isinstance(m, ModelConfig) else ModelConfig(m) for m in self.models]

    def endpoints(self) -> list[ModelConfig]:
        """Each model as it will be asked: its own endpoint and key variable, else the matrix's. The
        preflight asks exactly these, so it asks the endpoint the runs will use."""
        return [with_endpoint(m, self.base_url, self.key_env) for m in self.models]

    def run_spec(self, model: ModelConfig, condition: str, task: str, seed: int, agent: str = "impasse") -> RunSpec:
        """A model's own endpoint wins over the matrix's `base_url` (RunSpec.model_config)."""
        return RunSpec(model.spec, condition, task, seed, self.budget, self.out, self.base_url,
                       self.tool_timeout, self.model_timeout, self.gate, self.report_duty, self.channel,
                       config=with_endpoint(model, self.base_url, self.key_env), cost_limit=self.cost_limit,
                       prices=self.prices, history=self.history,
                       agent=agent, operator=self.operator)


@dataclass
class Progress:
    total: int
    skipped: int = 0
    done: int = 0
    failed: int = 0
    running: int = 0
    held: int = 0  # not started: a model's circuit breaker, or the spend cap (resumable)
    outcomes: Counter[str] = field(default_factory=Counter)
    held_because: Counter[str] = field(default_factory=Counter)
    tripped: set[str] = field(default_factory=set)  # models whose circuit breaker opened


def split(value) -> list[str] | str:
    if isinstance(value, list):
        return [str(v) for v in value]
    return "all" if value in (None, "all") else [v.strip() for v in str(value).split(",") if v.strip()]


def models_of(value, path: Path) -> list[ModelConfig]:
    """`models:` as a list of spec strings or mappings (spec, name, base_url, key_env, settings,
    price), or one comma-separated string of specs."""
    entries = value if isinstance(value, list) else split(value)
    try:
        configs = [config_from_entry(entry, f"{path}: models[{i}]") for i, entry in enumerate(entries)]
        refuse_duplicate_labels(configs)
    except ModelSpecError as err:
        raise MatrixError(str(err)) from None
    return configs


FILE_KEYS = tuple(f.name for f in fields(MatrixSpec))
NULLABLE = ("report_duty", "base_url", "key_env", "cost_limit", "spend_cap", "prices", "operator")
CONVERT = {"conditions": split, "tasks": split, "seeds": positive, "workers": positive,
           "budget": positive, "tool_timeout": positive, "model_timeout": float, "out": Path, "gate": Gate,
           "report_duty": Duty, "channel": strict_bool, "base_url": str, "key_env": env_name,
           "executor": member_of(EXECUTORS), "split": member_of(SPLITS), "cost_limit": dollars, "spend_cap": dollars,
           "breaker": positive, "prices": Path, "history": history_policy, "agents": split,
           "operator": member_of(MODES)}


def load_matrix_file(path: Path) -> MatrixSpec:
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as err:
        raise MatrixError(f"{path}: cannot be read as YAML ({err})") from None
    if not isinstance(data, dict) or not data.get("models"):
        raise MatrixError(f"{path}: needs at least `models:` (a list of model specs)")
    unknown = set(data) - set(FILE_KEYS)
    if unknown:
        raise MatrixError(f"{path}: unknown keys {sorted(unknown)}; known: {sorted(FILE_KEYS)}")
    values = {"models": models_of(data.pop("models"), path)}
    for key, value in data.items():
        try:
            values[key] = None if value is None and key in NULLABLE else CONVERT[key](value)
        except (TypeError, ValueError):
            raise MatrixError(f"{path}: {key}: {value!r} is not a valid {key}") from None
    return MatrixSpec(**values)


def plan(matrix: MatrixSpec) -> list[Planned]:
    """Every (agent, model, task, condition, seed) the tasks support; `none` always, for every
    task. A condition an agent cannot take (oom_kill for an agent inside the container) is left
    out for that agent: `not_planned` says which and why."""
    cards = load_cards()
    wanted = set(cards) if matrix.conditions == "all" else set(matrix.conditions) | {"none"}
    unknown = wanted - set(cards)
    if unknown:
        raise MatrixError(f"unknown condition(s): {', '.join(sorted(unknown))}; known: {', '.join(sorted(cards))}")
    tasks = matrix_tasks(matrix)
    planned = []
    for agent, model in product(agents_of(matrix), matrix.models):
        for task in tasks:
            for condition in task.conditions():
                if condition not in wanted or refusal(agent, condition):
                    continue
                for seed in range(matrix.seeds):
                    spec = matrix.run_spec(model, condition, task.id, seed, agent.label)
                    resolved = make_condition(task, cards[condition])
                    planned.append(Planned(spec, resolved, run_id_for(spec, resolved)))
    return planned


def agents_of(matrix: MatrixSpec) -> list[AgentSpec]:
    """The agents axis, checked whole: known, pinned, and able to run under the matrix's gate and duty;
    `all`: every agent impasse runs (the pairs an agent refuses are reported per cell, by name)."""
    names = list(AGENTS) if matrix.agents in ("all", ["all"]) else matrix.agents
    try:
        agents = [parse_agent(agent) for agent in names]
        for agent in agents:
            check_agent(agent, matrix.gate, matrix.report_duty)
            check_operator(matrix.operator, matrix.gate, matrix.report_duty, agent.label)
    except (AgentSpecError, ValueError) as err:
        raise MatrixError(str(err)) from None
    return agents


def refusal(agent: AgentSpec, condition: str) -> str | None:
    """Why the agent cannot be run under the condition (None: it can)."""
    try:
        check_agent(agent, Gate.TOOL, None, condition)
    except AgentSpecError as err:
        return str(err)
    return None


def not_planned(matrix: MatrixSpec) -> list[str]:
    """Why each (agent, condition) pair of the matrix left out is."""
    cards = set(load_cards()) if matrix.conditions == "all" else set(matrix.conditions)
    return [why for agent in agents_of(matrix) for card in sorted(cards) if (why := refusal(agent, card))]


def matrix_tasks(matrix: MatrixSpec) -> list[Task]:
    """`all`: the hand-written tasks; with a split, its generated tasks too. Named ids may be either."""
    if matrix.split is not None and matrix.split not in SPLITS:
        raise MatrixError(f"unknown split {matrix.split!r}; known: {', '.join(SPLITS)}")
    if matrix.tasks == "all":
        return tasks_of_split(matrix.split)
    try:
        named = [find_task(t) for t in matrix.tasks]
    except KeyError as err:
        raise MatrixError(str(err).strip("'\"")) from None
    return named + (list(generated_tasks(matrix.split)) if matrix.split else [])


def run_matrix(api: docker.DockerClient, matrix: MatrixSpec, on_update: Callable[[Progress, str], None],
               log=lambda m: None, executor: RunExecutor | None = None) -> Progress:
    """`executor`: where the runs happen; by default `matrix.workers` threads on `api`'s engine."""
    reap_stale(api)
    planned = plan(matrix)
    results = {item.run_id: item.result for item in planned}
    todo = [p for p in planned if not finished_result(results[p.run_id])]
    progress = Progress(total=len(planned), skipped=len(planned) - len(todo))
    on_update(progress, "planned")
    if not todo:  # nothing to do: no executor to start (a Ray cluster takes seconds to reach)
        return progress
    try:
        executor = executor or make_executor(matrix.executor, api, matrix.workers, log)
    except (RuntimeError, ValueError, ConnectionError) as err:  # Ray not installed, or no cluster to reach
        raise MatrixError(str(err)) from None
    admission = Admission(matrix.breaker, matrix.spend_cap)
    for item in planned:  # what earlier starts of this matrix spent counts against its cap
        if results[item.run_id] is not None:
            admission.add_spend(cost_in(results[item.run_id], item))
    lock = threading.Lock()

    def started(item: Planned) -> bool:
        reason = admission.hold_reason(item.spec.model_config.label)
        with lock:
            if reason:
                progress.held += 1
                progress.held_because[reason] += 1
            else:
                progress.running += 1
            on_update(progress, item.run_id)
        return reason is None

    def ended(item: Planned, outcome: str | None) -> None:
        admission.record(item.spec.model_config.label, outcome, cost_in(item.result, item))

    for end in executor.map(todo, started, ended):
        if end.held:
            continue
        with lock:
            progress.running = max(0, progress.running - 1)
            if end.error is None:
                progress.done += 1
                progress.outcomes[end.outcome] += 1
            else:
                progress.failed += 1
                log(f"{end.item.run_id} failed: {end.error}")
            progress.tripped = set(admission.tripped)
            on_update(progress, end.item.run_id)
    return progress


def cost_in(result: dict | None, item: Planned) -> float | None:
    """A run's cost in USD; a result written before costs were kept is a scripted run's 0 or unknown."""
    if result is None:
        return None
    if "cost" not in result:
        return 0.0 if item.spec.model_config.kind == "scripted" else None
    return (result["cost"] or {}).get("usd")
