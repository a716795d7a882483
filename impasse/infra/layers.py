"""The image layers of a condition, in order: base, the task (its project's repo with the bug as the
only commit; for a generated task, its pinned project's image), then the card's build-time recipe, if
it has one. Tags are content hashes, so a
second build is a cache hit."""

from __future__ import annotations

from dataclasses import dataclass

import docker

from impasse.catalog.cards import load_cards
from impasse.catalog.conditions import Condition, make_condition
from impasse.catalog.tasks import TASK_IMAGE_REPO, Task, load_tasks
from impasse.infra import images
from impasse.infra.images import Layer, Log
from impasse.infra.projects import ensure_project_image, fetch
from impasse.paths import DOCKERFILES

CONDITION_REPO = "impasse-cond"


@dataclass(frozen=True)
class ConditionImage:
    """A condition with its image built: what every container of a run, grading included, starts from.
    Built once per run and handed down, never looked up again."""

    condition: Condition
    image: str


def task_layer(task: Task, base: str) -> Layer:
    return Layer(repo=f"{TASK_IMAGE_REPO}-{task.id}", dockerfile=DOCKERFILES / "task.Dockerfile", parent=base,
                 files={"repo": task.project.repo, "bug.patch": task.bug_patch,
                        "services": task.project.services_dir})


def condition_layer(condition: Condition, task_image: str) -> Layer | None:
    build = condition.card.inject.build
    if not build:
        return None
    env = condition.script_env()
    return Layer(repo=f"{CONDITION_REPO}-{condition.task.image_key}-{condition.name}".replace("_", "-"),
                 dockerfile=DOCKERFILES / "condition.Dockerfile", parent=task_image,
                 buildargs={k: env[k] for k in ("IMPASSE_PYTHON_PACKAGES", "IMPASSE_BINARIES")},
                 inline={"build.sh": build})


def ensure_task_image(api: docker.DockerClient, task: Task, log: Log) -> str:
    """The image a task's conditions build on: its own, or for a generated task its project's (the
    bug is applied when each container starts: infra/overlay.py)."""
    if task.real:
        return ensure_project_image(api, fetch(task.real), log)
    base = images.ensure_base(api, log)
    try:
        return images.ensure_layer(api, task_layer(task, base), log)
    except images.ImageBuildError as err:
        hint = " (does bug.patch apply to the project's repo?)" if "git apply" in str(err) else ""
        raise images.ImageBuildError(f"task {task.id}: image build failed{hint}; {task.bug_patch}\n{err}") from None


def ensure_condition_image(api: docker.DockerClient, condition: Condition, log: Log) -> str:
    task_image = ensure_task_image(api, condition.task, log)
    layer = condition_layer(condition, task_image)
    return images.ensure_layer(api, layer, log) if layer else task_image


def build_all(api: docker.DockerClient, task_ids: list[str] | None = None,
              log: Log = print) -> list[str]:
    base = images.ensure_base(api, log)
    built = [base]
    cards = load_cards()
    for task in load_tasks(task_ids):
        task_image = ensure_task_image(api, task, log)
        built.append(task_image)
        for condition_id in task.supports:
            layer = condition_layer(make_condition(task, cards[condition_id]), task_image)
            if layer:
                built.append(images.ensure_layer(api, layer, log))
    return built


def stage(api: docker.DockerClient, condition: Condition, log: Log = lambda m: None) -> ConditionImage:
    return ConditionImage(condition, ensure_condition_image(api, condition, log))
