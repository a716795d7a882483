"""Tasks validated in Docker, SWE-smith round trip, and the bad inputs of the tasks issue."""

import shutil
from pathlib import Path

import docker.errors
import pytest
import yaml

from impasse.catalog.schema import DocumentError
from impasse.catalog.swesmith import export_jsonl, import_jsonl
from impasse.catalog.tasks import load_task, load_tasks
from impasse.infra import images
from impasse.infra.layers import ensure_task_image, task_layer
from impasse.proving.validation import validate_task

pytestmark = pytest.mark.docker


@pytest.mark.parametrize("task_id", [t.id for t in load_tasks()])
def test_task_validates(api, task_id):
    (task,) = load_tasks([task_id])
    result = validate_task(api, task, use_cache=False)
    assert result.valid, result.problems
    assert result.bug_failed == len(task.fail_to_pass)
    assert result.fix_passed == len(task.tests)


def copy_task(tmp_path: Path, task_id: str) -> Path:
    """A private tasks folder holding one task and its project, to break on purpose."""
    (task,) = load_tasks([task_id])
    shutil.copytree(task.project.root, tmp_path / "projects" / task.project.name)
    shutil.copytree(task.root, tmp_path / task_id)
    return tmp_path / task_id


def edit_yaml(path: Path, change) -> None:
    data = yaml.safe_load(path.read_text())
    change(data)
    path.write_text(yaml.safe_dump(data, sort_keys=False))


def test_swesmith_round_trip_gives_the_same_validation(api, tmp_path):
    (task,) = load_tasks(["invoicekit-tax-rounding"])
    exported = tmp_path / "instances.jsonl"
    export_jsonl([task], exported)
    into = tmp_path / "tasks"
    (folder,) = import_jsonl(exported, task.project.repo, into)
    imported = load_task(folder, into)
    assert (imported.fail_to_pass, imported.pass_to_pass, imported.supports) == \
        (task.fail_to_pass, task.pass_to_pass, task.supports)
    original, again = validate_task(api, task, use_cache=False), validate_task(api, imported, use_cache=False)
    assert (again.valid, again.bug_failed, again.bug_passed, again.fix_passed) == \
        (original.valid, original.bug_failed, original.bug_passed, original.fix_passed)


def test_malformed_task_yaml_names_file_and_field(tmp_path):
    folder = copy_task(tmp_path, "relnotes-breaking-bump")
    edit_yaml(folder / "task.yaml", lambda d: d.update(FAIL_TO_PASS="not a list"))
    with pytest.raises(DocumentError) as err:
        load_task(folder, tmp_path)
    assert str(folder / "task.yaml") in str(err.value) and "FAIL_TO_PASS" in str(err.value)


def test_patch_that_does_not_apply_fails_clearly_without_a_final_tag(api, tmp_path):
    folder = copy_task(tmp_path, "relnotes-breaking-bump")
    (folder / "bug.patch").write_text((folder / "bug.patch").read_text().replace("bool(match.group", "bool(no.group"))
    task = load_task(folder, tmp_path)
    tag = task_layer(task, images.ensure_base(api, lambda m: None)).tag
    with pytest.raises(images.ImageBuildError) as err:
        ensure_task_image(api, task, lambda m: None)
    assert "relnotes-breaking-bump" in str(err.value) and "bug.patch" in str(err.value)
    with pytest.raises(docker.errors.ImageNotFound):
        api.images.get(tag)


def test_a_test_id_that_does_not_exist_is_named(api, tmp_path):
    folder = copy_task(tmp_path, "relnotes-breaking-bump")
    edit_yaml(folder / "task.yaml", lambda d: d["FAIL_TO_PASS"].append("tests/test_version.py::test_nope"))
    result = validate_task(api, load_task(folder, tmp_path), use_cache=False)
    assert not result.valid
    assert result.problems == ["test id 'tests/test_version.py::test_nope' does not exist (pytest: not found)"]


def test_a_fail_to_pass_test_that_passes_with_the_bug_is_named(api, tmp_path):
    folder = copy_task(tmp_path, "relnotes-breaking-bump")
    moved = "tests/test_version.py::test_parse_and_print"

    def move(data):
        data["PASS_TO_PASS"].remove(moved)
        data["FAIL_TO_PASS"].append(moved)
    edit_yaml(folder / "task.yaml", move)
    result = validate_task(api, load_task(folder, tmp_path), use_cache=False)
    assert result.problems == [f"FAIL_TO_PASS {moved} passes with the bug"]

