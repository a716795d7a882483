"""Every place the harness runs something as root is listed in docs/integrity.md with the reason it
cannot run what the agent chose: a new one fails here until it is listed (and reasoned). Found in
the source by its syntax: a call of `exec_root` or `as_real_root`, a `user="0:0"` argument or
default, an `nsenter`."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SOURCES = [*sorted((ROOT / "impasse").rglob("*.py")), *sorted((ROOT / "harness").rglob("*.py"))]
LISTED = re.compile(r"^\| `([\w/.]+\.py)::(\w+)` \| [^|]+ \| [^|]*\w[^|]* \|$", re.M)


def is_root(node: ast.AST) -> bool:
    if isinstance(node, ast.Call):
        name = getattr(node.func, "attr", None) or getattr(node.func, "id", None)
        if name in ("exec_root", "as_real_root"):
            return True
        if any(k.arg == "user" and isinstance(k.value, ast.Constant) and k.value.value == "0:0" for k in node.keywords):
            return True
    return isinstance(node, ast.Constant) and node.value in ("0:0", "nsenter")


DEFS = (ast.FunctionDef, ast.AsyncFunctionDef)


def own_nodes(function: ast.AST) -> list[ast.AST]:
    """A function's nodes, not those of the functions defined inside it (each is listed by its name)."""
    nested = {id(n) for f in ast.walk(function) if f is not function and isinstance(f, DEFS) for n in ast.walk(f)}
    return [n for n in ast.walk(function) if id(n) not in nested]


def root_sites() -> set[str]:
    """`path::function` of every function whose body runs something as root."""
    found = set()
    for path in SOURCES:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for function in ast.walk(tree):
            if isinstance(function, DEFS) and any(is_root(n) for n in own_nodes(function)):
                found.add(f"{path.relative_to(ROOT)}::{function.name}")
    return found


def listed() -> set[str]:
    return {f"{path}::{name}" for path, name in LISTED.findall((ROOT / "docs" / "integrity.md").read_text())}


def test_every_root_exec_is_listed_with_its_reason():
    assert root_sites() - listed() == set(), "run as root but not listed in docs/integrity.md"


def test_every_listed_root_exec_still_exists():
    assert listed() - root_sites() == set(), "listed in docs/integrity.md but no longer runs as root"


def test_the_finder_finds_a_new_root_exec(tmp_path):
    """The finder is not blind: a function that calls exec_root, one that passes user="0:0"."""
    code = ("def a(box):\n    box.exec_root('git status')\n"
            "def b(api):\n    api.exec_create('c', ['git'], user='0:0')\n"
            "def c(box):\n    box.exec('git status')\n")
    tree = ast.parse(code)
    names = {f.name for f in tree.body if any(is_root(n) for n in ast.walk(f))}
    assert names == {"a", "b"}
