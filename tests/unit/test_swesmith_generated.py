"""Generated tasks travel as SWE-smith instances and come back: the real repository (`pypi/<name>`),
its pinned version and the bug patch go out; an import puts them back beside their project's tasks,
and refuses an instance whose project, version or test set is not the pinned one."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from impasse.catalog.generated import load_generated, load_project_tasks
from impasse.catalog.projects import get_real_project
from impasse.catalog.swesmith import ImportError_, export_jsonl, import_jsonl


def exported(tmp_path: Path, project: str) -> tuple[Path, list]:
    tasks = [t for t in load_generated() if t.project == project]
    path = tmp_path / "instances.jsonl"
    export_jsonl([], path, tasks)
    return path, tasks


def first_project() -> str:
    return sorted({t.project for t in load_generated()})[0]


def test_generated_instances_round_trip_into_their_projects_tasks(tmp_path: Path):
    name = first_project()
    path, tasks = exported(tmp_path, name)
    record = json.loads(path.read_text().splitlines()[0])
    assert record["repo"] == f"pypi/{name}" and record["version"] == get_real_project(name).version
    assert record["patch"] == tasks[0].patch and record["PASS_TO_PASS"] == list(tasks[0].pass_to_pass)
    import_jsonl(path, None, tmp_path / "tasks", tmp_path / "pypi")
    again = load_project_tasks(get_real_project(name), tmp_path / "pypi")
    assert [t.to_record() for t in again] == [t.to_record() for t in tasks]
    assert [t.pass_to_pass for t in again] == [t.pass_to_pass for t in tasks]
    import_jsonl(path, None, tmp_path / "tasks", tmp_path / "pypi")  # a second import replaces, never doubles
    assert len(load_project_tasks(get_real_project(name), tmp_path / "pypi")) == len(tasks)


def test_an_instance_whose_tests_differ_from_the_projects_baseline_is_refused(tmp_path: Path):
    name = first_project()
    path, tasks = exported(tmp_path, name)
    import_jsonl(path, None, tmp_path / "tasks", tmp_path / "pypi")
    record = json.loads(path.read_text().splitlines()[0]) | {"instance_id": f"{name}.other__0", "PASS_TO_PASS": []}
    odd = tmp_path / "odd.jsonl"
    odd.write_text(json.dumps(record) + "\n")
    with pytest.raises(ImportError_, match="differ from the baseline"):
        import_jsonl(odd, None, tmp_path / "tasks", tmp_path / "pypi")
    assert len(load_project_tasks(get_real_project(name), tmp_path / "pypi")) == len(tasks)  # nothing lost


def test_a_task_refused_by_validation_is_dropped_and_counted_as_rejected(tmp_path: Path):
    import shutil

    from impasse.catalog.generated import drop_tasks, load_stats
    from impasse.catalog.projects import PYPI, generated_dir
    project = get_real_project(first_project())
    shutil.copytree(generated_dir(project, PYPI), generated_dir(project, tmp_path))
    tasks, stats = load_project_tasks(project, tmp_path), load_stats(project, tmp_path)
    assert drop_tasks(project, {tasks[0].id, "not.a__task"}, "invalid in a fresh container", tmp_path) == 1
    after = load_stats(project, tmp_path)
    assert [t.id for t in load_project_tasks(project, tmp_path)] == [t.id for t in tasks[1:]]
    assert after.kept == stats.kept - 1 and after.rejected["invalid in a fresh container"] == 1
    assert after.tried == stats.tried  # it was tried, and is now a rejection
