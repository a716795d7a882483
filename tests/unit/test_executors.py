"""The executor seam without Docker: which executor a matrix asks for, and how a run folder shipped
back from a Ray node is filed (whole, over whatever a cut-short attempt left)."""

from __future__ import annotations

import pytest

from impasse.runs.executors import LocalExecutor, make_executor
from impasse.runs.matrix import MatrixError, load_matrix_file
from impasse.runs.ray_executor import file_run


def test_a_matrix_file_names_its_executor(tmp_path):
    good = tmp_path / "good.yaml"
    good.write_text("models: [scripted:oracle]\nexecutor: ray\n")
    assert load_matrix_file(good).executor == "ray"
    (tmp_path / "default.yaml").write_text("models: [scripted:oracle]\n")
    assert load_matrix_file(tmp_path / "default.yaml").executor == "local"
    bad = tmp_path / "bad.yaml"
    bad.write_text("models: [scripted:oracle]\nexecutor: kubernetes\n")
    with pytest.raises(MatrixError, match="executor"):
        load_matrix_file(bad)


def test_make_executor_knows_local_and_refuses_others():
    assert isinstance(make_executor("local", api=None, workers=0), LocalExecutor)
    assert make_executor("local", api=None, workers=0).workers == 1
    with pytest.raises(ValueError, match="unknown executor"):
        make_executor("slurm", api=None, workers=2)


def test_a_shipped_run_replaces_a_cut_short_folder_whole(tmp_path):
    cut_short = tmp_path / "run-a"
    cut_short.mkdir()
    (cut_short / "steps.jsonl").write_text('{"index": 1}\n{"index": 2}\n')
    (cut_short / "stale.txt").write_text("from an attempt that died")
    file_run(tmp_path, "run-a", {"meta.json": b"{}", "steps.jsonl": b'{"index": 1}\n', "result.json": b"{}"})
    assert sorted(p.name for p in cut_short.iterdir()) == ["meta.json", "result.json", "steps.jsonl"]
    assert (cut_short / "steps.jsonl").read_text() == '{"index": 1}\n'
    assert [p.name for p in tmp_path.iterdir()] == ["run-a"]  # no partial folder left beside it


def test_an_answer_lost_with_its_node_is_told_from_a_failed_run():
    """Ray's errors for a result whose node is gone (the run is run again) against a run that failed."""
    ray = pytest.importorskip("ray")
    from impasse.runs.ray_executor import lost_with_a_node
    for cls in (ray.exceptions.ObjectLostError, ray.exceptions.OwnerDiedError, ray.exceptions.NodeDiedError):
        assert lost_with_a_node(Exception.__new__(cls)), cls
    assert not lost_with_a_node(Exception.__new__(ray.exceptions.RayTaskError))
    assert not lost_with_a_node(RuntimeError("the run failed"))
