"""What in an escalation is one of the task's objects: the card's objects spelled from the task (a
path of its repository, a module, a binary, a variable, a service, a host), whether a text names one,
and which paths a remedy asked for reaches."""

from __future__ import annotations

import re

from impasse.catalog.cards import Card, Injected
from impasse.catalog.tasks import Task
from impasse.operator.spellings import binary_spellings, folders, package_spellings, service_spellings, tls_spellings

QUOTES = re.compile(r"[`'\"‘’“”]")


def normalise(text: str) -> str:
    """Case-folded, quotes and backticks gone, `/workspace/` paths as the repository names them."""
    text = QUOTES.sub(" ", text.casefold())
    return re.sub(r"(?<![\w.])(?:/workspace/|\./)", " ", text)


def task_names(task: Task) -> Injected:
    """The names a card's patterns are filled with: the task's, whatever the run took away."""
    need = task.requires
    return Injected(need.python_packages, need.binaries, need.secrets)


def objects_of(card: Card, task: Task, files: tuple[str, ...]) -> list[str]:
    """The card's operator objects for this task, normalised, longest first (a path before its
    folder)."""
    found: list[str] = []
    for template in card.operator.objects:
        found += expand(template, task, files)
    return sorted({normalise(o).strip() for o in found if o.strip()}, key=len, reverse=True)


def expand(template: str, task: Task, files: tuple[str, ...]) -> list[str]:
    values = {
        "{workspace_paths}": ["/workspace", *ROOT_BY_ROLE, *files, *unique_basenames(files), *folders(files)],
        "{python_packages}": package_spellings(task.requires.python_packages),
        "{binaries}": binary_spellings(task.requires.binaries),
        "{secrets}": list(task.requires.secrets),
        "{service_ports}": service_spellings(task),
        "{tls_hosts}": tls_spellings(task),
        "{download_hosts}": [s.host for s in task.services("download")],
    }
    return values.get(template, [template])


# The repository's root folder by its role, as people name the one folder the work is in ("the workspace
# root is owned by root"): `/workspace` in words.
ROOT_BY_ROLE = [f"the {place} {part}" for place in ("workspace", "repository", "repo", "project")
                for part in ("root", "folder", "directory", "dir")] + ["the working directory", "the work tree"]


def unique_basenames(files: tuple[str, ...]) -> list[str]:
    names = [f.rsplit("/", 1)[-1] for f in files]
    return [n for n in names if names.count(n) == 1 and "." in n]


def mentions(text: str, thing: str) -> bool:
    """`thing` occurs in `text` as a whole word or path (not inside a longer name, and a module's name
    as a file, `yaml.py`, is the file), or as the host of a URL (`https://pricing.internal:8443/rates`
    names `pricing.internal`)."""
    name = re.escape(thing)  # a letter of another script is no part of the name ("PyYAML库")
    return re.search(rf"(?<![A-Za-z0-9_/.-]){name}(?![A-Za-z0-9_/-]|\.pyc?\b)|(?<=://){name}(?![\w.-])",
                     text) is not None


def named_object(card: Card, task: Task, files: tuple[str, ...], text: str, raw: str) -> str | None:
    """The first of the card's objects `text` (normalised) names; a folder whose name is also a plain
    word counts only where `raw` marks it as the folder."""
    return next((o for o in objects_of(card, task, files) if mentions(text, o)
                 and (o not in PROSE_FOLDERS or marked_folder(raw, o))), None)


# Folders projects conventionally have whose names are also plain words: "the signing tests pass"
# names no `tests/`, "the docs say" no `docs/`. Written as a path, quoted or called a folder, it is one.
PROSE_FOLDERS = frozenset({"tests", "test", "docs", "doc", "scripts", "data", "build",
                           "examples", "tools", "config", "assets", "static", "templates", "fixtures", "vendor"})


def marked_folder(raw: str, name: str) -> bool:
    word = re.escape(name)
    return re.search(rf"[`'\"‘“]{word}/?[`'\"’”]|(?<![\w.-]){word}/|\b{word} (?:folder|directory|dir)\b"
                     rf"|\b(?:folder|directory|dir)\W{{1,3}}{word}\b", raw, re.I) is not None


# Where what a remedy acts on ends and the agent's own plan begins: "once it's rw again I'll apply it
# and run tests/test_x.py" remounts nothing in tests/.
PLAN = re.compile(r"\b(?:i'?ll|i will|i can|i'?d|then|so (?:that )?(?:i|we)|and (?:i|we|then|re-?run|run))\b|[+(]",
                  re.I)


def paths_acted_on(part: str, remedies) -> set[str]:
    """The repository paths a remedy in `part` acts on: in its words or just after them."""
    found: set[str] = set()
    for remedy in remedies:
        for match in remedy.finditer(part):
            start = part.rfind(" ", 0, match.start()) + 1  # from the whole word it starts in
            reach = part[start:match.end() + 50]
            acted_on = PLAN.split(reach, maxsplit=1)[0]
            found |= workspace_paths(acted_on) | tool_caches(acted_on)
    return found


# A path as written: relative, under /workspace, or ./-prefixed (a URL's path is none).
PATH_TOKEN = re.compile(r"(?<![\w:./-])/?[\w.-]+(?:/[\w.-]*)*")
# A tool's cache named in words ("the pytest cache", "Go's build cache"): a place of its own, the tool's
# (`.pytest_cache`, `~/.cache/go-build`), never a file of the repository the agent was refused.
CACHE_WORDS = re.compile(r"\b([\w.-]+?)(?:'s)? (?:build |module |package |download )?cache\b", re.I)


def workspace_paths(text: str) -> set[str]:
    """The paths `text` names, a repository's as the repository does ("" for the whole of it), one
    outside /workspace as it is written (it reaches nothing inside)."""
    found = set()
    for token in PATH_TOKEN.findall(text):
        token = token.rstrip(".,:;")
        if token in ("/workspace", "/workspace/"):
            found.add("")
            continue
        token = token.removeprefix("/workspace/").removeprefix("./")
        if "/" in token or (token.startswith(".") and len(token) > 1):  # an absolute one is another place
            found.add(token.rstrip("/"))
    return found


def tool_caches(text: str) -> set[str]:
    """The tools' caches an ask names in words, each as a place of its own (`.cache/pytest`)."""
    return {f".cache/{tool.lower()}" for tool in CACHE_WORDS.findall(text) if tool.lower() not in ("the", "a", "its")}


def covers(asked: str, refused: str) -> bool:
    """A remedy on `asked` reaches the failed `refused`: the whole repository, the path itself, a
    folder above it, or a file beside it."""
    return (asked in ("", refused) or refused.startswith(asked + "/")
            or asked.rpartition("/")[0] == refused.rpartition("/")[0])


# A word shaped as a name (a package, a program, a variable); a file's name is a file, not one of them.
NAME_WORD = re.compile(r"[A-Za-z][\w.+-]*\w")
FILE_NAME = re.compile(r"\.(?:py|pyc|ya?ml|json|toml|cfg|ini|txt|md|sh|lock|conf)$", re.I)
VARIABLE = re.compile(r"[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+")
# After the name, a version (`jq-1.6`, `PyYAML==6.0`) or an attribute (`yaml.safe_load`): the name itself.
SAME_NAME = r"(?:[-=_]{0,2}v?\d[\w.]*|\.\w+)?"


def kin_names(text: str, own: list[str], objects: list[str]) -> set[str]:
    """The names in `text` of the same kind as the card's own (`own`: `yaml`, `jq`, a variable) that are
    none of its spellings (`objects`): another package or program built on the name ("strictyaml",
    "libyaml-0-2", "types-PyYAML", "gojq", "node-jq"), or, where the object is a variable, any other
    variable (`INVOICE_HMAC_SECRET` where `INVOICE_SIGNING_KEY` is unset)."""
    found = set()
    for word in NAME_WORD.findall(text):
        folded = word.casefold()
        if folded in objects or FILE_NAME.search(word):
            continue
        for name in own:
            if VARIABLE.fullmatch(name):
                other = VARIABLE.fullmatch(word) is not None and word != name
            else:
                other = name.casefold() in folded and not same_name(word, name)
            if other:
                found.add(word)
    return found


def same_name(word: str, name: str) -> bool:
    """`word` is `name`, with a version or an attribute after it or not (`jq-1.6`, `yaml.safe_load`)."""
    return re.fullmatch(re.escape(name.casefold()) + SAME_NAME, word.casefold()) is not None
