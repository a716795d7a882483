"""`impasse matrix --executor ray`: one Ray task per run, on the nodes that advertise a Docker engine.

Deployment: every machine with Docker joins the cluster with the custom resource `docker` set to
the episodes it may run at once (`ray start --address HEAD --resources '{"docker": 16}'`); the
driver (`impasse matrix --executor ray`, cluster from RAY_ADDRESS) needs no Docker for the runs.

- A task resolves and stages its condition on its own node (content-hash tags: the first task of
  a condition there builds it under the per-tag lock, the others find it), runs the episode into a
  node-local folder and ships the folder back; the driver writes it under `out/<run_id>` in one
  rename. The driver's folder therefore only ever holds finished runs, wherever they ran.
- The run id is computed again on the node; a node whose task or card files differ from the
  driver's would give another id, and its run is refused rather than filed under the wrong one.
- A node that dies takes its running tasks with it; Ray runs them again elsewhere (`max_retries`),
  from scratch, as a cut-short run is redone. Before a task starts, the node reaps containers whose
  creating process is gone (the dead worker's), and the driver does the same on its engine at the end.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import uuid
from collections.abc import Iterator
from contextlib import closing
from dataclasses import replace
from pathlib import Path

from impasse.infra import images
from impasse.infra.reaper import reap_runs, reap_stale
from impasse.runs.runner import RunSpec, execute
from impasse.runs.seam import Admit, Ended, Finished, Planned, no_op_ended, windowed

RESOURCE = "docker"  # the custom resource a node with a Docker engine advertises, one unit per episode
NODE_RETRIES = 3  # a run whose node died is run again elsewhere this many times


class RayUnavailable(RuntimeError):
    pass


def import_ray():
    try:
        import ray
    except ImportError as err:
        raise RayUnavailable("the ray executor needs Ray: pip install 'impasse[ray]'") from err
    return ray


def run_on_node(spec: RunSpec) -> tuple[str, str, dict[str, bytes]]:
    """On a Docker node: the run into a fresh local folder, returned as (run id, outcome, files)."""
    api = images.client()
    reap_stale(api)  # of a worker that died on this node (a run of it is being redone)
    scratch = Path(tempfile.mkdtemp(prefix="impasse-ray-"))
    try:
        result = execute(api, replace(spec, out=scratch, filed_in=spec.out))
        files = {f.name: f.read_bytes() for f in result.path.iterdir() if f.is_file()}
        return result.run_id, str(result.outcome), files
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
        api.close()


def file_run(out: Path, run_id: str, files: dict[str, bytes]) -> None:
    """The shipped folder under out/<run_id>, whole or not at all: written beside it, then renamed
    over whatever a cut-short attempt left there."""
    partial = out / f".{run_id}.{uuid.uuid4().hex[:8]}.part"
    partial.mkdir(parents=True)
    for name, data in files.items():
        (partial / name).write_bytes(data)
    target = out / run_id
    if target.exists():
        shutil.rmtree(target)
    os.replace(partial, target)


# Ray's errors for an object whose copy went with a node (the names, so Ray stays an optional import).
LOST_ERRORS = {"ObjectLostError", "OwnerDiedError", "ObjectReconstructionFailedError",
               "ObjectReconstructionFailedMaxAttemptsExceededError", "ObjectReconstructionFailedLineageEvictedError",
               "ObjectFetchTimedOutError", "NodeDiedError"}
LOST_RERUNS = 2


def lost_with_a_node(err: BaseException) -> bool:
    return any(cls.__name__ in LOST_ERRORS for cls in type(err).__mro__)


class RayExecutor:
    """Runs spread over a Ray cluster: `address` None means RAY_ADDRESS, or a local one-node
    cluster when that is unset too (which then needs the `docker` resource: it is given one
    unit per worker)."""

    def __init__(self, workers: int, address: str | None = None, api=None, log=lambda m: None) -> None:
        self.ray = import_ray()
        self.workers = max(1, workers)
        self.api, self.log = api, log
        if not self.ray.is_initialized():
            address = address or os.environ.get("RAY_ADDRESS")
            extra = {} if address else {"resources": {RESOURCE: self.workers}}
            self.ray.init(address=address, log_to_driver=False, **extra)
        self.task = self.ray.remote(run_on_node).options(resources={RESOURCE: 1}, max_retries=NODE_RETRIES,
                                                         num_cpus=0)

    def slots(self) -> int:
        return max(self.workers, int(self.ray.cluster_resources().get(RESOURCE, 0)))

    def map(self, todo: list[Planned], started: Admit, ended: Ended = no_op_ended) -> Iterator[Finished]:
        def submit(item: Planned):
            if not started(item):  # held: a ref that is ready at once, collected as held
                return self.ray.put(None)
            # the driver's out folder as an absolute path: the node files the run's containers under it
            return self.task.remote(replace(item.spec, out=item.spec.out.resolve()))
        try:
            with closing(windowed(todo, self.slots(), submit, lambda refs: self.ray.wait(refs, num_returns=1)[0],
                                  lambda ref: self.ray.cancel(ref, force=True))) as ends:
                for item, ref in ends:
                    end = self.collect(item, ref)
                    if not end.held:
                        ended(item, end.outcome)
                    yield end
        finally:
            if self.api is not None:  # a node that died on this engine cannot clean up after itself
                reap_stale(self.api)
                reap_runs(self.api, {item.spec.out / item.run_id for item in todo})  # every run here is over now

    def collect(self, item: Planned, ref) -> Finished:
        for attempt in range(LOST_RERUNS + 1):
            try:
                answer = self.ray.get(ref)
                break
            except Exception as err:  # the run failed, or its node died more often than it was retried
                if attempt < LOST_RERUNS and lost_with_a_node(err):
                    # It finished, but its answer was in the object store of a node that is gone:
                    # Ray retries a task whose node died while it ran, not one whose result died.
                    self.log(f"{item.run_id}: its answer was lost with its node; running it again")
                    ref = self.task.remote(item.spec)
                    continue
                return Finished(item, error=f"{type(err).__name__}: {str(err)[:300]}")
        if answer is None:
            return Finished(item, held=True)
        run_id, outcome, files = answer
        if run_id != item.run_id:
            return Finished(item, error=f"the node computed run id {run_id}: its task or card files differ")
        file_run(item.spec.out, run_id, files)
        return Finished(item, outcome=outcome)
