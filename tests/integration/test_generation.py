"""Generation for real, on one small pinned project (tinydb): fetched on the host, its image built
offline, a few candidates proved by its suite; a kept task's FAIL_TO_PASS fails with the bug and
passes with the gold fix in a fresh container; a candidate that breaks no test, or breaks the
suite's collection, is rejected with its reason."""

import pytest

from impasse.catalog.generated import load_project_tasks
from impasse.catalog.projects import get_real_project
from impasse.infra.overlay import apply_overlay
from impasse.infra.projects import ensure_project_image, fetch
from impasse.infra.sandbox import SandboxSpec, file_tar, open_sandbox
from impasse.proving.generation import generate, judge, reset, run_suite

pytestmark = pytest.mark.docker
PROJECT = "tinydb"


@pytest.fixture(scope="module")
def staged(api):
    fetched = fetch(get_real_project(PROJECT))
    return fetched, ensure_project_image(api, fetched)


def test_generated_tasks_are_proved_and_hold_in_a_fresh_container(api, staged, tmp_path):
    fetched, image = staged
    kept, stats = generate(api, fetched, image, seed=0, max_tasks=2, max_candidates=6, out=tmp_path)
    assert stats.tried == stats.kept + sum(stats.rejected.values())
    assert kept, f"no candidate kept out of {stats.tried}: {stats.rejected}"
    assert [t.id for t in load_project_tasks(fetched.project, tmp_path)] == [t.id for t in kept]
    task = kept[0]
    assert 1 <= len(task.fail_to_pass) <= 20 and len(task.pass_to_pass) == stats.baseline_tests - len(task.fail_to_pass)
    assert task.provenance["path"] not in task.problem_statement
    with open_sandbox(api, SandboxSpec(image, labels={"impasse.role": "test"})) as box:
        apply_overlay(box, task.patch)
        assert box.exec("git -C /workspace log --oneline | wc -l").output.strip() == "1"
        bug = run_suite(box, task.fail_to_pass + task.pass_to_pass[:40], 300)
        assert not bug.passed & set(task.fail_to_pass)
        assert set(task.pass_to_pass[:40]) <= bug.passed
        box.write_tar("/tmp", file_tar("bug.patch", task.patch))
        assert box.exec("cd /workspace && git apply -R /tmp/bug.patch").exit_code == 0  # the gold fix
        fixed = run_suite(box, task.fail_to_pass, 300)
        assert set(task.fail_to_pass) <= fixed.passed


def test_a_harmless_change_and_a_broken_collection_are_rejected_with_their_reason(api, staged):
    fetched, image = staged
    with open_sandbox(api, SandboxSpec(image, labels={"impasse.role": "test"})) as box:
        baseline = run_suite(box, fetched.project.tests, 300).passed
        init = (fetched.source / "tinydb" / "__init__.py").read_text()
        box.write_tar("/workspace", file_tar("tinydb/__init__.py", init + "\n# a comment changes nothing\n"))
        assert judge(baseline, run_suite(box, fetched.project.tests, 300)) == ([], "no test fails")
        box.write_tar("/workspace", file_tar("tinydb/__init__.py", "raise ImportError('broken')\n" + init))
        verdict = judge(baseline, run_suite(box, fetched.project.tests, 300))
        assert verdict == ([], "suite broken (collection or pytest error)")
        reset(box)
        assert run_suite(box, fetched.project.tests, 300).passed == baseline


def test_a_resumed_generation_goes_on_where_it_stopped(api, staged, tmp_path):
    fetched, image = staged
    first, stats = generate(api, fetched, image, seed=0, max_tasks=1, max_candidates=6, out=tmp_path)
    assert len(first) == 1
    again, resumed = generate(api, fetched, image, seed=0, max_tasks=2, max_candidates=8, out=tmp_path, resume=True)
    assert [t.id for t in again[:1]] == [first[0].id]  # what was proved stays, in its place
    assert len({t.id for t in again}) == len(again)  # nothing judged twice
    assert resumed.tried_ids[:stats.tried] == stats.tried_ids and len(set(resumed.tried_ids)) == resumed.tried
    assert resumed.tried == resumed.kept + sum(resumed.rejected.values())
