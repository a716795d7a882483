"""Builds everything a run needs, in layer order: base, then each task, then condition layers."""

from __future__ import annotations

import docker

from impasse import images
from impasse.cards import load_cards
from impasse.conditions import condition_layer, ensure_task_image, make_condition
from impasse.images import Log
from impasse.tasks import load_tasks


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
