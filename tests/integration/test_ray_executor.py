"""`impasse matrix --executor ray` on a real multi-node Ray cluster started on this machine (each node
its own raylet with its own `docker` slots, all on this machine's engine): the matrix ends with
exactly the local executor's run set, and a node removed mid-matrix loses, duplicates and leaks
nothing. Skipped when Ray is not installed (`pip install 'impasse[ray]'`)."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path

import pytest

ray = pytest.importorskip("ray")
from ray.cluster_utils import Cluster  # noqa: E402

from impasse.infra.reaper import RUN_LABEL, run_label  # noqa: E402
from impasse.runs.matrix import MatrixSpec, plan, run_matrix  # noqa: E402
from impasse.runs.ray_executor import RayExecutor  # noqa: E402

pytestmark = [pytest.mark.docker, pytest.mark.ray]
TASK = "invoicekit-tax-rounding"


def spec(out: Path) -> MatrixSpec:
    # persistent under two blockers runs out its budget (a few seconds an episode), and solves `none`
    return MatrixSpec(["scripted:persistent"], ["chown_root", "read_only_fs"], [TASK], seeds=1, workers=3,
                      budget=12, out=out)


def run_set(out: Path) -> dict[str, str]:
    return {p.parent.name: json.loads(p.read_text())["outcome"] for p in out.glob("*/result.json")}


def labelled(api, runs: set[Path]) -> list:
    """The containers of these run folders (another suite's run of the same spec is not one). Sparse:
    one list call and no inspect per container, so one removed meanwhile is no 404."""
    keys = {run_label(run) for run in runs}
    return [c for c in api.containers.list(all=True, sparse=True, filters={"label": "impasse=1"})
            if c.attrs.get("Labels", {}).get(RUN_LABEL) in keys]


@pytest.fixture
def cluster():
    cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 1})  # the driver's node: no Docker slot
    nodes = [cluster.add_node(num_cpus=2, resources={"docker": 2}) for _ in range(2)]
    cluster.wait_for_nodes()
    ray.init(address=cluster.address, log_to_driver=False)
    yield cluster, nodes
    ray.shutdown()
    cluster.shutdown()


def test_ray_matrix_equals_local_and_survives_a_removed_node(api, tmp_path, cluster):
    cluster, (doomed, _) = cluster
    clock = time.monotonic()
    local = run_matrix(api, spec(tmp_path / "local"), lambda p, last: None)
    local_seconds = time.monotonic() - clock
    assert local.failed == 0 and local.done == 3
    ids = {p.run_id for p in plan(spec(tmp_path / "ray"))}
    runs = {tmp_path / "ray" / run_id for run_id in ids}

    def remove_once_three_runs_are_in_flight() -> None:
        """Each node runs two episodes at a time: three runs with live containers mean one at least
        is on the doomed node, and it dies with it."""
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            if len({c.attrs["Labels"]["impasse.run_id"] for c in labelled(api, runs)}) >= 3:
                cluster.remove_node(doomed)
                return
            time.sleep(0.1)
    remover = threading.Thread(target=remove_once_three_runs_are_in_flight)
    remover.start()
    clock = time.monotonic()
    remote = run_matrix(api, spec(tmp_path / "ray"), lambda p, last: None, executor=RayExecutor(3, api=api))
    ray_seconds = time.monotonic() - clock
    remover.join()
    assert not any(node is doomed for node in cluster.list_all_nodes())  # the node did go, mid-matrix
    assert remote.failed == 0 and remote.done == 3
    assert run_set(tmp_path / "ray") == run_set(tmp_path / "local")  # same ids, same outcomes
    assert sorted(p.name for p in (tmp_path / "ray").iterdir()) == sorted(ids)  # no partial, no duplicate
    for run in (tmp_path / "ray").iterdir():
        steps = [json.loads(line)["index"] for line in (run / "steps.jsonl").read_text().splitlines()]
        assert steps == list(range(1, len(steps) + 1))  # one attempt's trajectory, not two interleaved
    assert labelled(api, runs) == []  # the dead node's containers were reaped
    again = run_matrix(api, spec(tmp_path / "ray"), lambda p, last: None, executor=RayExecutor(3, api=api))
    assert (again.skipped, again.done) == (3, 0)  # finished runs are skipped on Ray too
    print(f"3 runs: local {local_seconds:.1f}s, ray {ray_seconds:.1f}s with a node removed")
