"""Procedural bugs in the manner of SWE-smith: one small change inside one of a project's own
functions, made through the AST and written back as a minimal text edit (the rest of the file keeps
its comments and layout). Each edit is checked by parsing the result: it must be exactly the
intended tree, and a change that leaves the tree as it was (a no-op) is dropped. Candidates come in
an order fixed by the seed, strategies interleaved, duplicates dropped.
"""

from __future__ import annotations

import ast
import copy
import difflib
import itertools
import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from impasse.hashing import hash_text

COMPARE_FLIP = {ast.Lt: ast.LtE, ast.LtE: ast.Lt, ast.Gt: ast.GtE, ast.GtE: ast.Gt, ast.Eq: ast.NotEq,
                ast.NotEq: ast.Eq, ast.Is: ast.IsNot, ast.IsNot: ast.Is, ast.In: ast.NotIn, ast.NotIn: ast.In}
BINOP_FLIP = {ast.Add: ast.Sub, ast.Sub: ast.Add, ast.Mult: ast.FloorDiv, ast.FloorDiv: ast.Mult,
              ast.Div: ast.Mult, ast.Mod: ast.FloorDiv, ast.Pow: ast.Mult, ast.LShift: ast.RShift,
              ast.RShift: ast.LShift, ast.BitAnd: ast.BitOr, ast.BitOr: ast.BitAnd, ast.BitXor: ast.BitAnd}
SYMMETRIC = {ast.Mult, ast.BitAnd, ast.BitOr, ast.BitXor, ast.Eq, ast.NotEq, ast.Is, ast.IsNot}
SKIP_PARTS = {"tests", "test", "testing", "_vendor", "vendor", "docs", "examples"}
DEFINITIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


@dataclass(frozen=True)
class Mutation:
    path: str  # relative to the project's root
    function: str  # qualified name of the function changed
    strategy: str
    line: int  # where the change is (provenance only: never shown to the agent)
    original: str
    mutated: str

    @property
    def digest(self) -> str:
        return hash_text(self.path, self.mutated)[:8]

    @property
    def patch(self) -> str:
        return unified_diff(self.path, self.original, self.mutated)


def unified_diff(path: str, before: str, after: str) -> str:
    lines = difflib.unified_diff(before.splitlines(keepends=True), after.splitlines(keepends=True), f"a/{path}",
                                 f"b/{path}", n=3)
    return "".join(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in lines)


# --- where each strategy can act, inside one function (nested functions are their own) ---

def own_nodes(func: ast.AST) -> Iterator[ast.AST]:
    stack = list(reversed(list(ast.iter_child_nodes(func))))
    while stack:
        node = stack.pop()
        yield node
        if not isinstance(node, DEFINITIONS):
            stack.extend(reversed(list(ast.iter_child_nodes(node))))


def is_docstring(node: ast.AST, parent_body: list) -> bool:
    return bool(parent_body and node is parent_body[0] and isinstance(node, ast.Expr)
            and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str))


def blocks(func: ast.AST) -> list[list[ast.stmt]]:
    found = [func.body]  # every statement list inside the function, its own body first
    for node in own_nodes(func):
        if isinstance(node, DEFINITIONS):
            continue  # a nested function or class: its statements are its own
        for name in ("body", "orelse", "finalbody"):
            body = getattr(node, name, None)
            if isinstance(body, list) and body and isinstance(body[0], ast.stmt):
                found.append(body)
        for handler in getattr(node, "handlers", []) or []:
            found.append(handler.body)
    return found


def statements(func: ast.AST, kinds: tuple) -> list[tuple[list, int]]:
    return [(body, i) for body in blocks(func) for i, s in enumerate(body)
            if isinstance(s, kinds) and not is_docstring(s, body)]


def numbers(node: ast.AST) -> bool:  # a number or a bool: what change_constant may change
    return isinstance(node, ast.Constant) and type(node.value) in (int, float, bool)


def swappable(node: ast.AST) -> bool:
    """Operands whose order matters (a swap of a == b or a * b is a no-op for behaviour)."""
    if isinstance(node, ast.BinOp):
        return type(node.op) not in SYMMETRIC
    return isinstance(node, ast.Compare) and len(node.ops) == 1 and type(node.ops[0]) not in SYMMETRIC


SITES: dict[str, Callable[[ast.AST], list]] = {
    "flip_comparison": lambda f: [n for n in own_nodes(f) if isinstance(n, ast.Compare)
                                  and type(n.ops[0]) in COMPARE_FLIP],
    "flip_operator": lambda f: [n for n in own_nodes(f) if isinstance(n, (ast.BinOp, ast.AugAssign))
                                and type(n.op) in BINOP_FLIP],
    "flip_boolean": lambda f: [n for n in own_nodes(f) if isinstance(n, ast.BoolOp)],
    "invert_condition": lambda f: [n.test for n in own_nodes(f) if isinstance(n, (ast.If, ast.While, ast.IfExp))],
    "change_constant": lambda f: [n for n in own_nodes(f) if numbers(n)],
    "swap_operands": lambda f: [n for n in own_nodes(f) if swappable(n)],
    "remove_conditional": lambda f: statements(f, (ast.If,)),
    "remove_loop": lambda f: statements(f, (ast.For, ast.While, ast.AsyncFor)),
    "remove_assignment": lambda f: statements(f, (ast.Assign, ast.AugAssign, ast.AnnAssign)),
    "remove_return": lambda f: statements(f, (ast.Return,)),
    "shuffle_lines": lambda f: [(b, i) for b, i in statements(f, (ast.stmt,))
                                if i + 1 < len(b) and not isinstance(b[i + 1], ast.Return)],
}
STRATEGIES = tuple(SITES)


def change_node(node: ast.AST, strategy: str) -> ast.AST:
    """The replacement for an expression site (a copy; the original tree is left alone)."""
    new = copy.deepcopy(node)
    if strategy == "flip_comparison":
        new.ops[0] = COMPARE_FLIP[type(new.ops[0])]()
    elif strategy == "flip_operator":
        new.op = BINOP_FLIP[type(new.op)]()
    elif strategy == "flip_boolean":
        new.op = ast.Or() if isinstance(new.op, ast.And) else ast.And()
    elif strategy == "invert_condition":
        return new.operand if isinstance(new, ast.UnaryOp) and isinstance(new.op, ast.Not) \
            else ast.UnaryOp(ast.Not(), new)
    elif strategy == "change_constant":
        value = new.value
        new.value = (not value) if isinstance(value, bool) else (0 if value == 1 else value + 1)
    elif strategy == "swap_operands":
        if isinstance(new, ast.BinOp):
            new.left, new.right = new.right, new.left
        else:
            new.left, new.comparators[0] = new.comparators[0], new.left
    return new


# --- text edits: byte columns (ast's col_offset counts UTF-8 bytes) on a list of lines ---

def splice(lines: list[str], node: ast.AST, text: str) -> list[str]:
    first, last = lines[node.lineno - 1].encode(), lines[node.end_lineno - 1].encode()
    joined = first[:node.col_offset].decode() + text + last[node.end_col_offset:].decode()
    return lines[:node.lineno - 1] + joined.splitlines(keepends=True) + lines[node.end_lineno:]


def stmt_lines(stmt: ast.stmt, lines: list[str]) -> tuple[int, int] | None:
    """The 0-based line range a statement fills alone (None when it shares a line with another)."""
    start, end = stmt.lineno - 1, stmt.end_lineno
    before = lines[start].encode()[:stmt.col_offset]
    after = lines[end - 1].encode()[stmt.end_col_offset:].decode().strip()
    if before.strip() or (after and not after.startswith("#")):
        return None
    return start, end


def edit_statement(lines: list[str], body: list, index: int, strategy: str) -> list[str] | None:
    stmt = body[index]
    span = stmt_lines(stmt, lines)
    if span is None:
        return None
    start, end = span
    if strategy == "shuffle_lines":
        if (other := stmt_lines(body[index + 1], lines)) is None:
            return None
        return lines[:start] + lines[other[0]:other[1]] + lines[end:other[0]] + lines[start:end] + lines[other[1]:]
    indent = lines[start][:len(lines[start]) - len(lines[start].lstrip())]
    filler = [f"{indent}pass\n"] if len(body) == 1 else []
    return lines[:start] + filler + lines[end:]


def path_to(tree: ast.AST, wanted: ast.AST) -> tuple[ast.AST, str, int | None]:
    """The parent of a node, the field holding it and its index in that field (None: not a list)."""
    for parent in ast.walk(tree):
        for field, value in ast.iter_fields(parent):
            if value is wanted:
                return parent, field, None
            if isinstance(value, list):
                for i, item in enumerate(value):
                    if item is wanted:
                        return parent, field, i
    raise LookupError("node not found")


def intended(tree: ast.Module, site, strategy: str) -> str:
    """The dump of the tree the edit must produce: the change made in place, dumped, then undone."""
    if isinstance(site, tuple):
        body, index = site
        saved = list(body)
        if strategy == "shuffle_lines":
            body[index], body[index + 1] = body[index + 1], body[index]
        else:
            del body[index]
            body[:] = body or [ast.Pass()]
        try:
            return ast.dump(tree)
        finally:
            body[:] = saved
    parent, field, position = path_to(tree, site)
    put(parent, field, position, change_node(site, strategy))
    try:
        return ast.dump(tree)
    finally:
        put(parent, field, position, site)


def put(parent: ast.AST, field: str, position: int | None, node: ast.AST) -> None:
    if position is None:
        setattr(parent, field, node)
    else:
        getattr(parent, field)[position] = node


def mutate(source: str, tree: ast.Module, site, strategy: str) -> str | None:
    """The mutated source, or None when the edit cannot be made exactly or changes nothing."""
    lines = source.splitlines(keepends=True)
    want = intended(tree, site, strategy)
    if want == ast.dump(tree):
        return None  # a no-op: the tree would not change
    if isinstance(site, tuple):
        edited = edit_statement(lines, site[0], site[1], strategy)
        attempts = ["".join(edited)] if edited else []
    else:
        text = ast.unparse(change_node(site, strategy))
        attempts = ["".join(splice(lines, site, t)) for t in (text, f"({text})")]
    for candidate in attempts:
        try:
            if ast.dump(ast.parse(candidate)) == want:
                return candidate
        except SyntaxError:
            continue
    return None


def functions(tree: ast.Module) -> list[tuple[str, ast.AST]]:
    found = []

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                found.append((prefix + child.name, child))
                visit(child, f"{prefix}{child.name}.")
            elif isinstance(child, ast.ClassDef):
                visit(child, f"{prefix}{child.name}.")
    visit(tree, "")
    return found


def source_files(root: Path, source: tuple[str, ...]) -> list[str]:
    files = []
    for entry in source:
        base = root / entry
        paths = [base] if base.is_file() else sorted(base.rglob("*.py"))
        for path in paths:
            rel = path.relative_to(root)
            if not SKIP_PARTS.intersection(rel.parts[:-1]) and not rel.name.startswith("test"):
                files.append(rel.as_posix())
    return files


def candidates(root: Path, source: tuple[str, ...], seed: int,
               strategies: tuple[str, ...] = STRATEGIES) -> Iterator[Mutation]:
    """Every mutation the strategies can make, in an order fixed by the seed: each strategy's sites
    shuffled, then taken in turn, one strategy after another. Duplicates and no-ops never come out.
    Each file is read and parsed once; a site is a node (or statement slot) of that one tree, which
    `mutate` leaves as it found it."""
    rng = random.Random(seed)
    per_strategy: dict[str, list] = {s: [] for s in strategies}
    for rel in source_files(root, source):
        text = (root / rel).read_text(encoding="utf-8")
        tree = ast.parse(text)
        for qualname, func in functions(tree):
            for strategy in strategies:
                per_strategy[strategy] += [(text, tree, rel, qualname, site, strategy)
                                           for site in SITES[strategy](func)]
    for sites in per_strategy.values():
        rng.shuffle(sites)
    seen: set[tuple[str, str]] = set()
    for turn in itertools.zip_longest(*per_strategy.values()):
        for item in filter(None, turn):
            mutation = make(*item)
            if mutation and (mutation.path, mutation.mutated) not in seen:
                seen.add((mutation.path, mutation.mutated))
                yield mutation


def make(source: str, tree: ast.Module, rel: str, qualname: str, site, strategy: str) -> Mutation | None:
    mutated = mutate(source, tree, site, strategy)
    if mutated is None:
        return None
    node = site[0][site[1]] if isinstance(site, tuple) else site
    return Mutation(rel, qualname, strategy, node.lineno, source, mutated)
