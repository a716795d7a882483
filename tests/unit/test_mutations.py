"""The procedural bug strategies: each changes behaviour, no-ops and duplicates never come out, the
order is fixed by the seed, and every patch applies to the pristine file with git."""

import ast
import subprocess
from pathlib import Path

import pytest

from impasse.catalog.mutations import STRATEGIES, candidates, mutate

SAMPLE = '''"""A module to break."""


def clamp(x, low, high):
    """Keep x within [low, high]."""
    if x < low:  # below the range
        return low
    if x > high:
        return high
    return x


def total(values):
    result = 0
    for v in values:
        result += v * 2
    return result


def both(a, b):
    return a and b


def pick(flag):
    return "yes" if flag else "no"


def diff(a, b):
    return a - b


def steps(n):
    out = []
    out.append(n)
    out.append(n + 1)
    return out


def limited(items, size=3):
    kept = []
    while len(kept) < size and items:
        kept.append(items.pop(0))
    return kept
'''

PROBES = [("clamp", (5, 0, 10)), ("clamp", (-1, 0, 10)), ("clamp", (11, 0, 10)), ("clamp", (0, 0, 10)),
          ("total", ([1, 2, 3],)), ("both", (True, False)), ("both", (1, 2)), ("pick", (True,)),
          ("diff", (7, 2)), ("steps", (4,)), ("limited", ([1, 2, 3, 4, 5],))]


def behaviour(source: str) -> list:
    namespace: dict = {}
    exec(compile(source, "sample.py", "exec"), namespace)
    results = []
    for name, args in PROBES:
        args = tuple(list(a) if isinstance(a, list) else a for a in args)
        try:
            results.append(repr(namespace[name](*args)))
        except Exception as err:  # a mutation may make a function raise: that is behaviour too
            results.append(type(err).__name__)
    return results


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "sample.py").write_text(SAMPLE)
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_sample.py").write_text("def test_x():\n    assert 1 < 2\n")
    return tmp_path


def test_there_are_at_least_six_strategies():
    assert len(STRATEGIES) >= 6


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_each_strategy_changes_behaviour(project, strategy):
    mutations = list(candidates(project, ("sample.py",), seed=1, strategies=(strategy,)))
    assert mutations, f"{strategy} found nothing to change in the sample"
    original = behaviour(SAMPLE)
    changed = [m for m in mutations if behaviour(m.mutated) != original]
    assert changed, f"no {strategy} mutation changed what the sample's functions return"
    for m in mutations:
        assert m.strategy == strategy and m.path == "sample.py"
        assert ast.dump(ast.parse(m.mutated)) != ast.dump(ast.parse(SAMPLE))


def test_mutations_keep_the_rest_of_the_file_as_written(project):
    for m in candidates(project, ("sample.py",), seed=0):
        assert "# below the range" in m.mutated or m.strategy.startswith("remove")
        assert m.mutated.startswith('"""A module to break."""')
        changed = [(a, b) for a, b in zip(SAMPLE.splitlines(), m.mutated.splitlines(), strict=False) if a != b]
        assert len(SAMPLE.splitlines()) - len(m.mutated.splitlines()) <= 3 or m.strategy == "remove_loop"
        assert changed or len(SAMPLE.splitlines()) != len(m.mutated.splitlines())


def test_tests_and_vendored_code_are_never_mutated(project):
    (project / "pkg" / "_vendor").mkdir(parents=True)
    (project / "pkg" / "_vendor" / "lib.py").write_text("def f(a):\n    return a + 1\n")
    (project / "pkg" / "core.py").write_text("def g(a):\n    return a + 1\n")
    paths = {m.path for m in candidates(project, ("pkg", "tests"), seed=0)}
    assert paths == {"pkg/core.py"}


def test_a_no_op_is_dropped(tmp_path):
    source = "def f(x):\n    x.append(1)\n    x.append(1)\n    return x\n"
    (tmp_path / "m.py").write_text(source)
    assert list(candidates(tmp_path, ("m.py",), seed=0, strategies=("shuffle_lines",))) == []
    tree = ast.parse(source)
    body = tree.body[0].body
    assert mutate(source, tree, (body, 0), "shuffle_lines") is None


def test_order_is_fixed_by_the_seed_and_nothing_repeats(project):
    def run(seed):
        return [(m.path, m.strategy, m.line, m.mutated) for m in candidates(project, ("sample.py",), seed)]
    first, again, other = run(7), run(7), run(8)
    assert first == again
    assert first != other and sorted(first) == sorted(other)  # the same set, another order
    assert len({m[3] for m in first}) == len(first)


def test_every_patch_applies_with_git_and_gives_the_mutated_file(project):
    subprocess.run(["git", "init", "-q"], cwd=project, check=True)
    for m in list(candidates(project, ("sample.py",), seed=3))[:25]:
        (project / "bug.patch").write_text(m.patch)
        subprocess.run(["git", "apply", "bug.patch"], cwd=project, check=True)
        assert (project / "sample.py").read_text() == m.mutated
        subprocess.run(["git", "apply", "-R", "bug.patch"], cwd=project, check=True)
        assert (project / "sample.py").read_text() == SAMPLE
