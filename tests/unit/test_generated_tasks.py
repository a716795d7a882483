"""Real projects' pins, generated tasks as data, their statements, and the verdict on a candidate."""

import gzip
import io
import json
import tarfile
from pathlib import Path

import pytest

from impasse.catalog.generated import (
    GeneratedTask,
    Stats,
    load_project_tasks,
    save_baseline,
    save_tasks,
    select_split,
)
from impasse.catalog.projects import PinError, RealProject, load_real_projects, parse_projects
from impasse.catalog.statements import Failure, write_statement
from impasse.hashing import file_sha256
from impasse.infra.projects import fetch_sdist, unpack
from impasse.proving.generation import SuiteRun, judge, parse_report


def sdist_bytes(with_tests: bool = True) -> bytes:
    stream = io.BytesIO()
    with tarfile.open(fileobj=stream, mode="w") as tar:
        files = {"demo-1.0/demo.py": b"def f():\n    return 1\n"}
        if with_tests:
            files["demo-1.0/tests/test_demo.py"] = b"def test_f():\n    assert True\n"
        for name, data in files.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return gzip.compress(stream.getvalue(), mtime=0)


def local_project(tmp_path: Path, sha256: str | None = None, with_tests: bool = True) -> RealProject:
    served = tmp_path / "served" / "demo-1.0.tar.gz"
    served.parent.mkdir(parents=True, exist_ok=True)
    served.write_bytes(sdist_bytes(with_tests))
    return RealProject("demo", "1.0", "a demo", served.as_uri(), sha256 or file_sha256(served), ("demo.py",),
                       ("tests",), ())


def test_the_pinned_projects_are_real_and_enough():
    projects = load_real_projects()
    assert len(projects) >= 10
    assert any(p.requires for p in projects.values())  # some have a runtime dependency
    for p in projects.values():
        assert p.sdist_url.startswith("https://files.pythonhosted.org/") and len(p.sha256) == 64
        assert any(w.startswith("pytest==") for w in p.installs)


@pytest.mark.parametrize("entry, problem", [
    ("{name: x, version: 1, sdist: 'https://h/x-1.tar.gz', sha256: abc, source: [x], tests: [t]}", "sha256"),
    ("{name: x, version: 1, sdist: 'http://h/x-1.tar.gz', sha256: " + "a" * 64 + ", source: [x], tests: [t]}",
     "https"),
    ("{name: x, version: 1, sdist: 'https://h/x-1.tar.gz', sha256: " + "a" * 64
     + ", source: [x], tests: [t], requires: [six]}", "exact pin"),
    ("{name: x, version: 1, sha256: " + "a" * 64 + ", source: [x], tests: [t]}", "missing sdist"),
])
def test_a_malformed_pin_is_refused_with_its_reason(entry, problem):
    with pytest.raises(PinError, match=problem):
        parse_projects(f"projects:\n  - {entry}\n")


def test_a_wrong_sha256_is_a_clear_error_and_nothing_is_written(tmp_path):
    project = local_project(tmp_path, sha256="0" * 64)
    cache = tmp_path / "cache"
    with pytest.raises(PinError, match="sha256 mismatch: pinned 0000"):
        fetch_sdist(project, cache)
    assert [p for p in cache.rglob("*") if p.is_file()] == []  # no file, no partial download


def test_a_good_sdist_is_kept_and_reused_without_downloading_again(tmp_path):
    project = local_project(tmp_path)
    cache = tmp_path / "cache"
    first = fetch_sdist(project, cache)
    assert file_sha256(first) == project.sha256
    Path(project.sdist_url.removeprefix("file://")).unlink()  # the index is gone: the cache must do
    assert fetch_sdist(project, cache) == first
    assert (unpack(project, first, cache) / "tests" / "test_demo.py").is_file()


def test_an_sdist_without_its_test_suite_is_refused(tmp_path):
    project = local_project(tmp_path, with_tests=False)
    cache = tmp_path / "cache"
    with pytest.raises(PinError, match="holds no tests"):
        unpack(project, fetch_sdist(project, cache), cache)
    assert not (cache / "src" / "demo-1.0").exists()


def failing(test: str, *messages: str) -> Failure:
    return Failure(test, messages)


def test_the_statement_shows_the_tests_side_and_hides_the_bug():
    failures = [failing("tests/test_tables.py::test_insert_multiple[json]", "assert 3 == 4",
                        "where 3 = <function Table.insert at 0x7f00aa>()"),
                failing("tests/test_tables.py::TestX::test_remove_ids", "ValueError: bad id",
                        "tinydb/table.py:412: in remove")]
    text = write_statement("tinydb", "4.8.2", "a database", failures, hidden=("tinydb/table.py", "Table.insert"))
    assert "tinydb 4.8.2" in text
    assert "tests/test_tables.py::test_insert_multiple[json]" in text and "insert multiple (json)" in text
    assert "assert 3 == 4" in text and "ValueError: bad id" in text
    assert "Table.insert" not in text and "table.py:412" not in text and "0x7f00aa" not in text
    assert "python3 -m pytest" in text
    assert text == write_statement("tinydb", "4.8.2", "a database", failures,
                                   hidden=("tinydb/table.py", "Table.insert"))


def test_the_statement_of_one_failure_reads_as_one():
    text = write_statement("click", "8.1.7", "cli", [failing("tests/test_basic.py::test_flag_off")])
    assert "test `tests/test_basic.py::test_flag_off` fails: flag off no longer works" in text


def run(passed, broken=False, timed_out=False) -> SuiteRun:
    return SuiteRun(set(passed), {}, 1, 1.0, timed_out, broken)


@pytest.mark.parametrize("after, reason", [
    ({"a", "b", "c"}, "no test fails"),
    ({"c"}, None),
    (set(), "more than 20"),
])
def test_the_verdict_on_a_candidate(after, reason):
    baseline = {"a", "b", "c"} | ({f"t{i}" for i in range(25)} if reason == "more than 20" else set())
    after = after | (baseline - {"a", "b", "c"} if reason != "more than 20" else set())
    f2p, why = judge(baseline, run(after))
    assert (why or "").startswith(reason or "") and (why is None) == (reason is None)
    if reason is None:
        assert f2p == ["a", "b"]


def test_a_broken_suite_or_a_timeout_is_rejected_whatever_passed():
    assert judge({"a"}, run(set(), broken=True))[1].startswith("suite broken")
    assert judge({"a"}, run(set(), timed_out=True))[1] == "time limit"


def test_the_report_gives_passes_and_each_failures_messages():
    text = """..F
=================================== FAILURES ===================================
_____________________________ TestQ.test_or[json] ______________________________
tests/test_q.py:10: in test_or
    assert q({'a': 1})
E   AssertionError: assert False
E    +  where False = q({'a': 1})
=========================== short test summary info ============================
PASSED tests/test_q.py::test_and
PASSED tests/test_q.py::test_eq[x y]
FAILED tests/test_q.py::TestQ::test_or[json] - AssertionError: assert False
"""
    passed, messages = parse_report(text)
    assert passed == {"tests/test_q.py::test_and", "tests/test_q.py::test_eq[x y]"}
    assert messages == {"tests/test_q.py::TestQ::test_or[json]": ["AssertionError: assert False",
                                                                  "+  where False = q({'a': 1})"]}


def task(project: str, n: int, baseline=("t1", "t2", "t3")) -> GeneratedTask:
    return GeneratedTask(f"{project}.flip_comparison__{n:08x}", project, "1.0", "patch", ("t1",), "s",
                         {"strategy": "flip_comparison"}, baseline)


def test_pass_to_pass_is_the_baseline_outside_fail_to_pass():
    assert task("a", 1).pass_to_pass == ("t2", "t3")


def test_tasks_round_trip_through_their_files(tmp_path):
    project = local_project(tmp_path)
    save_baseline(project, ["t3", "t1", "t2"], 1.5, tmp_path)
    save_tasks(project, [task("demo", 1), task("demo", 2)], Stats("demo", "1.0", 0, tried=5, kept=2), tmp_path)
    loaded = load_project_tasks(project, tmp_path)
    assert [t.id for t in loaded] == [task("demo", 1).id, task("demo", 2).id]
    assert loaded[0].pass_to_pass == ("t2", "t3")
    stats = json.loads((tmp_path / "demo-1.0" / "stats.json").read_text())
    assert (stats["tried"], stats["kept"]) == (5, 2)


def test_lite_is_stratified_by_project_and_full_is_everything():
    tasks = [task(p, n) for p, count in (("a", 40), ("b", 5), ("c", 30)) for n in range(count)]
    lite = select_split(tasks, "lite")
    assert len(lite) == 50
    counts = {p: sum(t.project == p for t in lite) for p in "abc"}
    assert counts["b"] == 5 and abs(counts["a"] - counts["c"]) <= 1
    assert lite == select_split(list(reversed(tasks)), "lite")
    assert select_split(tasks, "full") == tasks


def test_a_wheel_with_other_bytes_than_locked_is_refused_and_a_new_one_is_locked(tmp_path):
    from impasse.catalog.projects import get_real_project
    from impasse.infra.projects import check_wheels, read_lock
    staging = tmp_path / "wheels"
    staging.mkdir()
    (staging / "six-1.16.0-py2.py3-none-any.whl").write_bytes(b"the real wheel")
    lock = tmp_path / "wheels.lock"
    project = get_real_project("toolz")
    check_wheels(project, staging, lock)  # first use: locked
    locked = read_lock(lock)
    assert list(locked) == ["six-1.16.0-py2.py3-none-any.whl"]
    (staging / "six-1.16.0-py2.py3-none-any.whl").write_bytes(b"other bytes, same name")
    with pytest.raises(PinError, match="sha256 mismatch"):
        check_wheels(project, staging, lock)
    assert read_lock(lock) == locked  # the lock keeps the first bytes


def test_every_wheel_of_the_lock_is_named_once_with_a_sha256():
    from impasse.infra.projects import WHEELS_LOCK, read_lock
    locked = read_lock(WHEELS_LOCK)
    assert locked and all(name.endswith(".whl") and len(digest) == 64 for name, digest in locked.items())
