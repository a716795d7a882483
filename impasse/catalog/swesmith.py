"""SWE-smith interop: our tasks as SWE-smith instances (JSONL) and back.

SWE-smith's fields are kept as SWE-smith means them (`patch` is the bug-introducing diff); what
impasse needs beyond them (project, requirements, supported conditions) travels under `impasse`,
which SWE-smith tooling ignores.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections.abc import Sequence
from pathlib import Path

import yaml

from impasse.catalog.generated import GeneratedTask, load_baseline, load_project_tasks, save_baseline, write_tasks
from impasse.catalog.generated_tasks import reverse_patch
from impasse.catalog.projects import PYPI, get_real_project
from impasse.catalog.tasks import PROJECTS_DIR, TASK_IMAGE_REPO, Task


class ImportError_(ValueError):
    pass


def to_instance(task: Task) -> dict:
    requires = {k: list(v) if isinstance(v, tuple) else v
                for k, v in vars(task.requires).items() if v not in ((), None, False)}
    return {
        "instance_id": task.id,
        "repo": task.project.name,
        "patch": task.bug_patch.read_text(),
        "FAIL_TO_PASS": list(task.fail_to_pass),
        "PASS_TO_PASS": list(task.pass_to_pass),
        "problem_statement": task.problem_statement,
        "image_name": f"{TASK_IMAGE_REPO}-{task.id}",
        "impasse": {"summary": task.summary, "requires": requires, "supports": list(task.supports),
                    "project": yaml.safe_load((task.project.root / "project.yaml").read_text())},
    }


def generated_instance(task: GeneratedTask) -> dict:
    """A generated task over a real PyPI project: `repo` and `version` name the pinned sdist, `patch`
    is the bug, and the environment is the project's image (the patch applied when it starts)."""
    project = get_real_project(task.project)
    return {
        "instance_id": task.id,
        "repo": f"pypi/{task.project}",
        "version": task.version,
        "patch": task.patch,
        "FAIL_TO_PASS": list(task.fail_to_pass),
        "PASS_TO_PASS": list(task.pass_to_pass),
        "problem_statement": task.problem_statement,
        "image_name": project.image_repo,
        "impasse": {"generated": True, "provenance": task.provenance,
                    "sdist": project.sdist_url, "sha256": project.sha256, "tests": list(project.tests)},
    }


def export_jsonl(tasks: list[Task], path: Path, generated: Sequence[GeneratedTask] = ()) -> int:
    with path.open("w", encoding="utf-8") as out:
        for task in tasks:
            out.write(json.dumps(to_instance(task)) + "\n")
        for task in generated:
            out.write(json.dumps(generated_instance(task)) + "\n")
    return len(tasks) + len(generated)


def gold_fix(repo: Path, patch: str) -> str:
    """The gold fix: the bug patch reversed, once the bug is shown to apply to the pristine repo."""
    # The ceiling keeps git from taking an enclosing checkout (impasse's own) for the patch's root.
    applied = subprocess.run(["git", "apply", "--check", "-"], cwd=repo, input=patch, text=True, capture_output=True,
                             env={**os.environ, "GIT_CEILING_DIRECTORIES": str(repo.resolve().parent)})
    if applied.returncode:
        raise ImportError_(f"patch does not apply to {repo}: {applied.stderr.strip()}")
    return reverse_patch(patch)


def import_instance(instance: dict, repo: Path, tasks_dir: Path) -> Path:
    """One instance (its keys checked by `import_jsonl`) as a task folder on a copy of `repo`."""
    extra = instance.get("impasse", {})
    project = tasks_dir / PROJECTS_DIR / instance["repo"]
    if not project.exists():
        shutil.copytree(repo, project / "repo", ignore=shutil.ignore_patterns(".git", "__pycache__"))
        (project / "services").mkdir(exist_ok=True)
        # Service code and data are not part of an instance: a project that declares services
        # needs its services/ folder copied in by hand.
        (project / "project.yaml").write_text(yaml.safe_dump(extra.get("project") or {
            "name": instance["repo"], "description": f"imported from SWE-smith ({instance['repo']})",
            "test_command": "python3 -m pytest"}, sort_keys=False))
    folder = tasks_dir / instance["instance_id"]
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "bug.patch").write_text(instance["patch"])
    (folder / "fix.patch").write_text(gold_fix(project / "repo", instance["patch"]))
    document = {"id": instance["instance_id"], "project": instance["repo"],
                "summary": extra.get("summary", instance["instance_id"]),
                "problem_statement": instance["problem_statement"],
                "FAIL_TO_PASS": instance["FAIL_TO_PASS"], "PASS_TO_PASS": instance["PASS_TO_PASS"],
                "requires": extra.get("requires", {}),
                "supports": extra.get("supports", ["chown_root", "read_only_fs", "flaky_sandbox"])}
    (folder / "task.yaml").write_text(yaml.safe_dump(document, sort_keys=False, width=100))
    return folder


def import_generated(instance: dict, root: Path = PYPI) -> Path:
    """A generated instance joins its pinned project's tasks (the same name and version, or it is
    refused); its PASS_TO_PASS must be that project's baseline without its FAIL_TO_PASS."""
    name, version = instance["repo"].removeprefix("pypi/"), str(instance.get("version", ""))
    try:
        project = get_real_project(name)
    except KeyError as err:
        reason = str(err).strip("'\"")
        raise ImportError_(f"instance {instance['instance_id']}: {reason}") from None
    if version != project.version:
        raise ImportError_(f"instance {instance['instance_id']}: {name} {version or '(no version)'} is not "
                           f"the pinned {project.key}")
    tests = (*instance["FAIL_TO_PASS"], *instance["PASS_TO_PASS"])
    baseline = load_baseline(project, root)
    if baseline is None:
        save_baseline(project, list(tests), 0.0, root)
        baseline = tuple(sorted(tests))
    elif set(baseline) != set(tests):
        raise ImportError_(f"instance {instance['instance_id']}: FAIL_TO_PASS + PASS_TO_PASS differ from the "
                           f"baseline of {project.key} ({len(tests)} tests against {len(baseline)})")
    task = GeneratedTask(instance["instance_id"], name, version, instance["patch"], tuple(instance["FAIL_TO_PASS"]),
                         instance["problem_statement"], instance.get("impasse", {}).get("provenance", {}), baseline)
    kept = [t for t in load_project_tasks(project, root) if t.id != task.id]
    return write_tasks(project, [*kept, task], root)


def is_generated(instance: dict) -> bool:
    return bool(instance.get("impasse", {}).get("generated")) or str(instance.get("repo", "")).startswith("pypi/")


def import_jsonl(path: Path, repo: Path | None, tasks_dir: Path, pypi_root: Path = PYPI) -> list[Path]:
    """Hand-written instances need `repo`, a checkout of their repository; generated ones join their
    pinned PyPI project's tasks."""
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise ImportError_(f"{path}: not UTF-8 text (a binary file?)") from None
    folders = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            instance = json.loads(line)
        except json.JSONDecodeError as err:
            raise ImportError_(f"{path}:{number}: not valid JSON: {err}") from None
        if not isinstance(instance, dict):
            raise ImportError_(f"{path}:{number}: not a JSON object (an instance)")
        missing = [k for k in ("instance_id", "repo", "patch", "FAIL_TO_PASS", "PASS_TO_PASS",
                               "problem_statement") if k not in instance]
        if missing:
            raise ImportError_(f"{path}:{number}: instance {instance.get('instance_id', '?')}: missing "
                               f"{', '.join(missing)}")
        if is_generated(instance):
            folders.append(import_generated(instance, pypi_root))
        elif repo is None:
            raise ImportError_(f"{path}:{number}: instance {instance['instance_id']} is not generated: "
                               "give --repo, a checkout of its repository")
        else:
            folders.append(import_instance(instance, repo, tasks_dir))
    return folders
