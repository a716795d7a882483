"""Generated tasks as runnable tasks: the gold fix is the bug patch reversed, about half of them must
be committed, the cards they support follow from what they need, and they are found and sampled like
hand-written ones. No Docker: the patches are applied with `git apply` in a scratch repository."""

import dataclasses
import difflib
import subprocess
from collections import Counter
from pathlib import Path

import pytest

from impasse.catalog.generated import load_generated
from impasse.catalog.generated_tasks import (
    COMMIT_REQUEST,
    as_task,
    find_task,
    materialise,
    needs_commit,
    reverse_patch,
    sampled_for_card,
)
from impasse.catalog.projects import get_real_project
from impasse.catalog.tasks import parents

ALWAYS = ("chown_root", "read_only_fs", "disk_full", "flaky_sandbox")
NEVER = ("service_down", "tls_cert_invalid", "missing_secret", "network_down_download", "missing_binary", "oom_kill")

ORIGINAL = "".join(f"line {i}\n" for i in range(1, 31))
CHANGED = ORIGINAL.replace("line 3\n", "line three\n").replace("line 25\n", "line 25\nan extra line\n")
OTHER = "alpha\nbeta\ngamma\n"
OTHER_CHANGED = "alpha\nBETA\ngamma\n"


def unified(path: str, before: str, after: str) -> str:
    return "".join(difflib.unified_diff(before.splitlines(keepends=True), after.splitlines(keepends=True),
                                        fromfile=f"a/{path}", tofile=f"b/{path}"))


def git_repo(tmp_path: Path, files: dict[str, str]) -> Path:
    repo = tmp_path / "repo"
    repo.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    for name, text in files.items():
        (repo / name).parent.mkdir(parents=True, exist_ok=True)
        (repo / name).write_text(text)
    return repo


def git_apply(repo: Path, patch: str) -> None:
    (repo.parent / "change.patch").write_text(patch)
    result = subprocess.run(["git", "apply", str(repo.parent / "change.patch")], cwd=repo,
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stderr


@pytest.fixture(scope="module")
def generated():
    tasks = sorted(load_generated(), key=lambda t: t.id)
    if not tasks:
        pytest.skip("no generated tasks in the repository")
    return tasks


def test_reversing_a_single_hunk_diff_restores_the_original(tmp_path):
    before, after = "a\nb\nc\nd\n", "a\nB\nc\nd\n"
    patch = unified("pkg/mod.py", before, after)
    repo = git_repo(tmp_path, {"pkg/mod.py": after})
    git_apply(repo, reverse_patch(patch))
    assert (repo / "pkg/mod.py").read_text() == before


def test_reversing_a_multi_hunk_diff_restores_the_original(tmp_path):
    patch = unified("mod.py", ORIGINAL, CHANGED)
    assert patch.count("\n@@ ") >= 1 and patch.count("@@ -") == 2  # two hunks, far apart
    repo = git_repo(tmp_path, {"mod.py": ORIGINAL})
    git_apply(repo, patch)
    assert (repo / "mod.py").read_text() == CHANGED
    git_apply(repo, reverse_patch(patch))
    assert (repo / "mod.py").read_text() == ORIGINAL


def test_reversing_a_diff_of_two_files_restores_both(tmp_path):
    patch = unified("mod.py", ORIGINAL, CHANGED) + unified("sub/other.py", OTHER, OTHER_CHANGED)
    repo = git_repo(tmp_path, {"mod.py": CHANGED, "sub/other.py": OTHER_CHANGED})
    git_apply(repo, reverse_patch(patch))
    assert (repo / "mod.py").read_text() == ORIGINAL
    assert (repo / "sub/other.py").read_text() == OTHER


def test_the_reversed_diff_has_the_headers_and_lines_of_the_diff_the_other_way_round():
    """Same file headers and hunk ranges as diffing the other way; within a hunk only the order of
    removed and added lines may differ (git accepts either)."""
    reversed_, other_way = reverse_patch(unified("mod.py", ORIGINAL, CHANGED)), unified("mod.py", CHANGED, ORIGINAL)
    headers = lambda p: [line for line in p.splitlines() if line.startswith(("--- ", "+++ ", "@@ "))]  # noqa: E731
    assert headers(reversed_) == headers(other_way)
    assert sorted(reversed_.splitlines()) == sorted(other_way.splitlines())


def test_reversing_twice_gives_the_patch_back(generated):
    patches = [unified("mod.py", ORIGINAL, CHANGED),
               unified("mod.py", ORIGINAL, CHANGED) + unified("sub/other.py", OTHER, OTHER_CHANGED),
               *(g.patch for g in generated)]
    for patch in patches:
        assert reverse_patch(reverse_patch(patch)) == patch


def images(patch: str) -> dict[str, tuple[str, str]]:
    """Per file, the text a patch needs (its hunks' context and removed lines, hunk after hunk) and
    the text it leaves (context and added lines): enough to apply it without the project's source."""
    files: dict[str, list[list[str]]] = {}
    current = None
    for line in patch.splitlines(keepends=True):
        if line.startswith("+++ b/"):
            current = files.setdefault(line[6:].strip(), [[], []])
        elif line.startswith(("--- a/", "@@ ")) or current is None:
            continue
        elif line[:1] in (" ", "-"):
            current[0].append(line[1:])
            if line[:1] == " ":
                current[1].append(line[1:])
        elif line[:1] == "+":
            current[1].append(line[1:])
    return {path: ("".join(before), "".join(after)) for path, (before, after) in files.items()}


def test_every_generated_bug_patch_is_undone_by_its_reverse(tmp_path, generated):
    """The bug turns the pristine text into the buggy one, and the gold fix turns it back."""
    for n, gen in enumerate(generated):
        files = images(gen.patch)
        assert files, gen.id
        repo = git_repo(tmp_path / str(n), {path: before for path, (before, _) in files.items()})
        git_apply(repo, gen.patch)
        assert {path: (repo / path).read_text() for path in files} == {p: a for p, (_, a) in files.items()}
        git_apply(repo, reverse_patch(gen.patch))
        assert {path: (repo / path).read_text() for path in files} == {p: b for p, (b, _) in files.items()}


def test_needs_commit_is_deterministic_and_splits_the_tasks_about_in_half(generated):
    ids = [g.id for g in generated]
    first = [needs_commit(i) for i in ids]
    assert first == [needs_commit(i) for i in ids]
    share = sum(first) / len(first)
    assert 0.3 <= share <= 0.7, share


@pytest.fixture(scope="module")
def tasks(generated, tmp_path_factory):
    cache = tmp_path_factory.mktemp("generated-cache")
    return [(g, as_task(g, cache=cache)) for g in generated]


def test_the_gold_fix_is_the_bug_patch_reversed(tasks):
    for gen, task in tasks:
        assert task.bug_patch.read_text() == gen.patch
        assert task.fix_patch.read_text() == reverse_patch(gen.patch)
        assert task.real is not None and task.real.name == gen.project


def test_pass_to_pass_excludes_fail_to_pass(tasks):
    for gen, task in tasks:
        assert task.fail_to_pass == gen.fail_to_pass and task.fail_to_pass
        assert not set(task.pass_to_pass) & set(task.fail_to_pass)
        assert set(task.pass_to_pass) | set(task.fail_to_pass) >= set(gen.baseline) - set(gen.fail_to_pass)


def test_supports_follow_from_what_the_task_needs(tasks):
    for gen, task in tasks:
        for card in ALWAYS:
            assert card in task.supports, (task.id, card)
        for card in NEVER:
            assert card not in task.supports, (task.id, card)
        assert ("git_index_lock" in task.supports) == task.requires.commit == needs_commit(gen.id)
        runtime = get_real_project(gen.project).runtime
        assert ("removed_dependency" in task.supports) == bool(runtime), task.id
        assert "none" not in task.supports
        assert task.conditions()[0] == "none"


def test_both_kinds_of_task_appear(tasks):
    """The corpus exercises both sides of each conditional support."""
    assert Counter(t.requires.commit for _, t in tasks).keys() == {True, False}
    assert Counter("removed_dependency" in t.supports for _, t in tasks).keys() == {True, False}


def test_the_statement_asks_for_a_commit_iff_one_is_required(tasks):
    for gen, task in tasks:
        assert task.problem_statement.startswith(gen.problem_statement.strip())
        assert task.problem_statement.endswith(COMMIT_REQUEST) == task.requires.commit
        if not task.requires.commit:
            assert task.problem_statement == gen.problem_statement.strip()


def test_materialise_writes_into_the_given_cache_once(tmp_path, generated):
    gen = generated[0]
    folder = materialise(gen, tmp_path)
    assert folder.parent == tmp_path
    assert sorted(p.name for p in folder.iterdir()) == ["bug.patch", "fix.patch"]
    stamps = {p.name: p.stat().st_mtime_ns for p in folder.iterdir()}
    assert materialise(gen, tmp_path) == folder
    assert {p.name: p.stat().st_mtime_ns for p in folder.iterdir()} == stamps
    assert list(tmp_path.iterdir()) == [folder]
    assert (folder / "bug.patch").read_text() == gen.patch


def test_materialise_gives_a_changed_patch_its_own_folder(tmp_path, generated):
    gen = generated[0]
    changed = dataclasses.replace(gen, patch=gen.patch + "\n")
    assert materialise(changed, tmp_path) != materialise(gen, tmp_path)


def test_content_hash_is_stable_and_follows_the_patch(tmp_path, generated):
    gen = generated[0]
    first = as_task(gen, cache=tmp_path / "one").content_hash
    again = as_task(next(g for g in load_generated() if g.id == gen.id), cache=tmp_path / "two").content_hash
    assert first == again
    added = next(line for line in gen.patch.splitlines(keepends=True) if line[:1] == "+" and line[:4] != "+++ ")
    patch = gen.patch.replace(added, added.rstrip("\n") + "  # another bug\n", 1)
    assert patch != gen.patch
    assert as_task(dataclasses.replace(gen, patch=patch), cache=tmp_path / "one").content_hash != first


def test_find_task_finds_both_kinds_and_refuses_an_unknown_id(generated):
    gen = generated[0]
    found = find_task(gen.id)
    assert found.id == gen.id and found.real is not None and found.fix_patch.read_text() == reverse_patch(gen.patch)
    hand = find_task("invoicekit-tax-rounding")
    assert hand.id == "invoicekit-tax-rounding" and hand.real is None
    with pytest.raises(KeyError):
        find_task("no-such-task.anywhere__00000000")


@pytest.mark.parametrize("card_id", ["git_index_lock", "removed_dependency", "chown_root"])
def test_sampled_for_card_is_stratified_and_deterministic(card_id):
    sample = sampled_for_card("full", card_id, per_project=2)
    assert sample
    assert all(card_id in t.supports for t in sample)
    per_project = Counter(t.project.name for t in sample)
    assert max(per_project.values()) <= 2
    assert [t.id for t in sampled_for_card("full", card_id, per_project=2)] == [t.id for t in sample]
    assert len({t.id for t in sample}) == len(sample)


def test_sampled_for_card_takes_the_first_tasks_of_each_project_by_id(generated):
    sample = sampled_for_card("full", "git_index_lock", per_project=2)
    for project in {t.project.name for t in sample}:
        eligible = sorted(g.id for g in generated if g.project == project and needs_commit(g.id))
        assert [t.id for t in sample if t.project.name == project] == eligible[:2]


def test_sampled_for_card_skips_a_card_no_generated_task_supports():
    assert sampled_for_card("full", "service_down", per_project=2) == []


def test_parents_are_the_folders_above_a_test_folder():
    assert parents("src/pkg/tests") == ["src", "src/pkg"]
    assert parents("tests") == []
    assert parents("toolz/tests") == ["toolz"]


def test_reverse_patch_reads_lines_by_the_hunk_counts_not_by_their_look():
    patch = ("--- /dev/null\n+++ b/new.py\n@@ -0,0 +1,2 @@\n+-- a/x\n+y\n"
             "--- a/old.py\n+++ b/old.py\n@@ -1,3 +1,2 @@\n keep\n--- a/not a header\n end\n")
    reverse = reverse_patch(patch)
    assert reverse.startswith("--- a/new.py\n+++ /dev/null\n@@ -1,2 +0,0 @@\n--- a/x\n-y\n")
    assert "+-- a/not a header\n" in reverse and "@@ -1,2 +1,3 @@" in reverse
    assert reverse_patch(reverse) == patch
