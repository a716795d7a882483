"""The package holds to its own map: docs/design.md names every module, imports point one way down
the pipeline, modules stay small, and the vocabulary is spelled out in one place."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from impasse.analysis.report import COLOURS
from impasse.vocabulary import ENDING_RULES, OUTCOME_MEANING, SCORED_OUTCOMES, Ending, Gate, Outcome

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "impasse"
# Imports only point to the same layer or an earlier one.
LAYERS = (("vocabulary", "defaults", "paths", "hashing", "locks", "folds", "prose", "__init__"),
          ("dialects",), ("catalog",),
          ("infra",),
          ("models",), ("operator",), ("episode",), ("agents",), ("analysis",), ("truth",), ("proving",), ("runs",),
          ("inspect_ext",), ("cli", "__main__"))
MAX_LINES = 300


def modules() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py"))


def unit_of(path: Path) -> str:
    """The top-level package or module a file belongs to (`episode`, `vocabulary`, …)."""
    return path.relative_to(PACKAGE).parts[0].removesuffix(".py")


def layer_of(unit: str) -> int:
    return next(i for i, names in enumerate(LAYERS) if unit in names)


def imported_units(path: Path) -> set[str]:
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        names = []
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("impasse"):
            names = [node.module + "." + alias.name for alias in node.names]
        elif isinstance(node, ast.Import):
            names = [alias.name for alias in node.names if alias.name.startswith("impasse")]
        for name in names:
            parts = name.split(".")
            if len(parts) > 1:
                found.add(parts[1])
    return {u for u in found if any(u in names for names in LAYERS)}


def mapped_modules() -> set[str]:
    """Module paths the map in docs/design.md names: each table row's backticked file names, under the
    package its first column (or the row above) gives."""
    text = (ROOT / "docs" / "design.md").read_text()
    section = text[text.index("## Packages and modules"):text.index("### One vocabulary")]
    named, package = set(), ""
    for row in (line for line in section.splitlines() if line.startswith("| ") and "---" not in line):
        first, second = (cell.strip() for cell in row.strip("|").split("|")[:2])
        if first:
            package = first.strip("`").rstrip("/") if first.startswith("`") else ""
        for name in re.findall(r"`([\w.]+\.py)`", second):
            named.add(f"{package}/{name}" if package else name)
    entry_points = set(re.findall(r"Entry points: `(\w+\.py)`.*?`(\w+\.py)`", text)[0])
    return named | entry_points


def test_the_design_map_names_every_module_and_no_other():
    actual = {p.relative_to(PACKAGE).as_posix() for p in modules()}
    package_docstrings = {a for a in actual if a.endswith("/__init__.py") and a != "models/__init__.py"}
    assert mapped_modules() == actual - package_docstrings


def test_imports_point_one_way_down_the_pipeline():
    in_no_layer = {unit_of(path) for path in modules()} - {unit for names in LAYERS for unit in names}
    assert in_no_layer == set(), "a package the layers do not name: place it in LAYERS and in docs/design.md"
    upward = []
    for path in modules():
        here = unit_of(path)
        for unit in imported_units(path):
            if layer_of(unit) > layer_of(here):
                upward.append(f"{path.relative_to(PACKAGE)} imports {unit}")
    assert upward == []


def module_name(path: Path) -> str:
    """`impasse.runs.matrix` for impasse/runs/matrix.py, `impasse.models` for impasse/models/__init__.py."""
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imported_modules(path: Path, known: set[str]) -> set[str]:
    """The impasse modules a file imports, wherever the import stands: one inside a function or
    under TYPE_CHECKING ties the two modules together all the same."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module:
            found |= {f"{node.module}.{a.name}" if f"{node.module}.{a.name}" in known else node.module
                      for a in node.names}
        elif isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
    return found & known


def reachable(graph: dict[str, set[str]], start: str) -> set[str]:
    seen, todo = set(), [start]
    while todo:
        for module in graph[todo.pop()] - seen:
            seen.add(module)
            todo.append(module)
    return seen


def import_cycles() -> list[tuple[str, ...]]:
    """Each group of modules that import one another in a loop, found by who reaches whom."""
    paths = {module_name(p): p for p in modules()}
    graph = {name: imported_modules(path, set(paths)) - {name} for name, path in paths.items()}
    reach = {name: reachable(graph, name) for name in graph}
    return sorted({tuple(sorted(m for m in reach[name] if name in reach[m])) for name in graph if name in reach[name]})


def test_no_modules_import_each_other_in_a_loop():
    assert import_cycles() == []


def test_every_module_is_small():
    sizes = {p.relative_to(PACKAGE).as_posix(): len(p.read_text().splitlines()) for p in modules()}
    assert {name: n for name, n in sizes.items() if n > MAX_LINES} == {}


def spelled_out(values: set[str]) -> list[str]:
    """String constants equal to a vocabulary value outside vocabulary.py, other than dict keys and
    subscripts (a field named `resolved` is data, not the outcome)."""
    found = []
    for path in modules():
        if path.name == "vocabulary.py":
            continue
        tree = ast.parse(path.read_text())
        keys = {id(k) for node in ast.walk(tree) if isinstance(node, ast.Dict) for k in node.keys if k is not None}
        keys |= {id(node.slice) for node in ast.walk(tree) if isinstance(node, ast.Subscript)}
        keys |= {id(node.args[0]) for node in ast.walk(tree) if isinstance(node, ast.Call) and node.args
                 and isinstance(node.func, ast.Attribute) and node.func.attr == "get"}
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and node.value in values and id(node) not in keys:
                found.append(f"{path.relative_to(PACKAGE)}:{node.lineno} {node.value!r}")
    return found


def test_endings_outcomes_and_gates_are_spelled_out_once():
    # "tool" is also a chat role, "unknown" a placeholder name and "runtime" an agent spec's field and
    # its placeholder, so they are left out of the search.
    values = {str(v) for v in (*Ending, *Outcome, *Gate)} - {"tool", "unknown", "runtime"}
    assert spelled_out(values) == []


def test_every_ending_has_a_rule_and_every_outcome_a_share_a_colour_and_a_doc_line():
    assert set(ENDING_RULES) == set(Ending)
    assert set(OUTCOME_MEANING) == set(Outcome) and set(COLOURS) == set(Outcome)
    metrics_doc = (ROOT / "docs" / "metrics.md").read_text()
    assert [o for o in Outcome if f"`{o}`" not in metrics_doc] == []
    assert set(SCORED_OUTCOMES) == set(Outcome) - {Outcome.TRANSPORT_ERROR}
