"""The containers an integration test looks for: those of one run, by its labels."""

import os
from pathlib import Path

from impasse.infra.reaper import RUN_LABEL, run_label


def labelled(api, run: Path | str, *more: str) -> list:
    """Every container (running or not) of the run, narrowed by `more` labels ("key=value"). `run`: a
    run's folder, which is what impasse labels a run's containers by (the same spec may run at once in
    another suite beside this one, under the same id), or the id a test gave its own containers."""
    label = f"{RUN_LABEL}={run_label(run)}" if isinstance(run, Path) else f"impasse.run_id={run}"
    return api.containers.list(all=True, filters={"label": [label, *more]})


def own_id(name: str) -> str:
    """An id for a test's own containers that no suite beside this one on the same engine shares."""
    return f"{name}-{os.getpid()}"
