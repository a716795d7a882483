"""Blocker cards: how a blocker is injected, how it shows in tool output (signatures), what unsafe
workarounds look like, how an agent names it (diagnosis), and the probe that proves it is in place.

Patterns may hold placeholders filled from what was injected for a run — `{python_packages}`,
`{binaries}`, `{secrets}` — so a card knows exactly which module or binary it took away. For a
foreign trajectory nothing is known, and a placeholder matches any plausible name.

A card's signatures are its YAML's and, after them, the walls agents' own harnesses print in their own
words for the same blocker (dialects/harness_walls.py): a permission mode holding a tool use, a sandbox
refusing a process.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field
from pathlib import Path

from impasse.catalog.schema import DocumentError, load_document, read_yaml
from impasse.dialects.harness_walls import wall_files, walls_of
from impasse.hashing import hash_tree
from impasse.paths import CARDS

FAMILIES_FILE = "families.yaml"
PLACEHOLDERS = ("python_packages", "binaries", "secrets")
ANY_NAME = r"[\w.+-]+"  # an unknown name in a pattern: any plausible one
NEVER = "(?!)"  # or none: where a name that may match anything would read every text as the blocker's
REQUIREMENTS = ("writes", "python_package", "binary", "secret", "service", "tls_service", "download",
                "commit", "memory")


@dataclass(frozen=True)
class Injected:
    """What one run took away, for filling placeholders. Empty means: unknown (foreign runs)."""

    python_packages: tuple[str, ...] = ()
    binaries: tuple[str, ...] = ()
    secrets: tuple[str, ...] = ()

    def alternation(self, key: str, unknown: str = ANY_NAME) -> str:
        names = getattr(self, key)
        return "(?:" + "|".join(re.escape(n) for n in names) + ")" if names else unknown


def fill(pattern: str, injected: Injected, unknown: str = ANY_NAME) -> str:
    """`unknown`: what a placeholder with no name injected becomes (ANY_NAME or NEVER)."""
    for key in PLACEHOLDERS:
        pattern = pattern.replace("{" + key + "}", injected.alternation(key, unknown))
    return pattern


@dataclass(frozen=True)
class Signature:
    pattern: str
    reason: str
    exit_codes: tuple[int, ...] = ()
    injected: str | None = None  # the named group `name` must be one of these injected names


@dataclass(frozen=True)
class Workaround:
    pattern: str
    category: str
    applies_to: tuple[str, ...] = ("command",)
    samples: tuple[str, ...] = ()


@dataclass(frozen=True)
class Inject:
    docker_run: dict = field(default_factory=dict)
    build: str | None = None
    root_setup: str | None = None
    omit: tuple[str, ...] = ()
    tls_cert: str = "valid"
    injector: dict | None = None


@dataclass(frozen=True)
class InPlace:
    """How the blocker is undone where it is, for an agent inside its container: a root script in its
    mount namespace, files copied back from the control image, the harness's own actions from outside
    (infra/in_place.py); or, `refused`, the measured reason it cannot be while the agent runs."""

    root: str | None = None
    restore: str | None = None
    host: tuple[str, ...] = ()
    refused: str | None = None


@dataclass(frozen=True)
class OperatorBlock:
    """How the operator (`--operator rules`) answers an escalation of this blocker: the objects
    naming it must name (templates filled from the task), whether one must be named at all, and the
    reply once the blocker is lifted ({object}: what the agent named, nothing else)."""

    objects: tuple[str, ...] = ()
    requires_object: bool = True
    fixed: str = ""
    lift: str = "fresh_environment"
    in_place: InPlace = InPlace(refused="no in-place lift is declared")
    remedies: tuple[str, ...] = ()  # what, asked of a person, would lift it (operator/asks.py)
    verbs: tuple[str, ...] = ()  # the remedies' actions, for an ask in another language
    # What the remedies' verbs may be asked of that is not this blocker's object ("raise the ulimit -v"
    # is not the container's memory): a clause naming one fits no remedy, in any language.
    other_objects: str | None = None
    # The agent's own account of the failure that would send a person to lift something else ("the file
    # is missing its write bit" of a root-owned file: chmod, which its owner alone may do): the wrong cause.
    misread: str | None = None


@dataclass(frozen=True)
class Card:
    id: str
    path: Path
    title: str
    summary: str
    requires: tuple[str, ...]
    inject: Inject
    signatures: tuple[Signature, ...]
    workarounds: tuple[Workaround, ...]  # the card's own plus those of its families
    diagnosis: tuple[str, ...]
    probe: str | None
    proof_commands: tuple[str, ...] = ()
    self_caused: tuple[str, ...] = ()
    sensors: tuple[str, ...] = ()  # runtime sensors whose reading on a step is an onset (infra/sensors.py)
    operator: OperatorBlock = OperatorBlock()

    @property
    def is_control(self) -> bool:
        return self.id == "none"

    @property
    def category(self) -> str:
        """The kind of blocker, in the labelling vocabulary of real-trajectory corpora."""
        return CATEGORIES.get(self.id, self.id)

    @property
    def content_hash(self) -> str:
        return hash_tree([self.path, self.path.parent / FAMILIES_FILE, *wall_files(self.id)])


# Card → the blocker category used to label real trajectories (missing_dependency, permission, …).
CATEGORIES = {"removed_dependency": "missing_dependency", "missing_binary": "missing_binary",
              "chown_root": "permission", "read_only_fs": "read_only", "network_down_download": "network",
              "disk_full": "disk_full", "oom_kill": "oom", "git_index_lock": "lock",
              "missing_secret": "missing_secret", "tls_cert_invalid": "tls", "service_down": "service_down",
              "flaky_sandbox": "sandbox", "none": "none"}
# When two cards' signatures first match at the same step, the more specific blocker names it: a
# certificate or a down service over "network". A lock git cannot create names what stopped it: a
# `.lock: Permission denied` (or read-only) is the permission's, only a lock that exists is the lock's,
# and only its card matches that.
SPECIFICITY = ("tls_cert_invalid", "service_down", "missing_secret", "disk_full", "oom_kill",
               "read_only_fs", "removed_dependency", "missing_binary", "network_down_download", "chown_root",
               "git_index_lock", "flaky_sandbox")


def check_regex(pattern: str, where: str, problems: list[str]) -> None:
    try:
        re.compile(fill(pattern, Injected()), re.M)
    except re.error as err:
        problems.append(f"{where}: bad regex {pattern!r}: {err}")


@functools.cache
def load_families(cards_dir: Path = CARDS) -> dict[str, Workaround]:
    path = cards_dir / FAMILIES_FILE
    data = read_yaml(path).get("families", {})
    problems: list[str] = []
    families = {}
    for name, body in data.items():
        check_regex(body["pattern"], f"families.{name}.pattern", problems)
        families[name] = Workaround(body["pattern"], name, tuple(body.get("applies_to", ["command"])))
    if problems:
        raise DocumentError(path, problems)
    return families


def load_card(path: Path, cards_dir: Path | None = None) -> Card:
    data = load_document(path, "card")
    families = load_families(cards_dir or path.parent)
    problems = card_problems(data, path, families)
    if problems:
        raise DocumentError(path, problems)
    own = tuple(Workaround(w["pattern"], w["category"], tuple(w.get("applies_to", ["command"])),
                           tuple(w.get("samples", []))) for w in data["workarounds"])
    inherited = tuple(families[name] for name in data["workaround_families"])
    inject = data["inject"]
    return Card(
        id=data["id"], path=path, title=data["title"], summary=data["summary"].strip(),
        requires=tuple(data["requires"]),
        inject=Inject(docker_run=dict(inject.get("docker_run", {})), build=inject.get("build"),
                      root_setup=inject.get("root_setup"), omit=tuple(inject.get("omit", [])),
                      tls_cert=inject.get("tls_cert", "valid"), injector=inject.get("injector")),
        signatures=tuple(Signature(s["pattern"], s["reason"], tuple(s.get("exit_codes", [])),
                                   s.get("injected")) for s in data["signatures"])
        + tuple(Signature(wall.pattern, wall.reason) for wall in walls_of(data["id"])),  # agents' own words
        workarounds=own + inherited, diagnosis=tuple(data["diagnosis"]), probe=data["probe"],
        proof_commands=tuple(data.get("proof", {}).get("workaround_commands", [])),
        self_caused=tuple(data.get("self_caused", [])), sensors=tuple(data.get("sensors", [])),
        operator=operator_block(data.get("operator", {})))


def operator_block(data: dict) -> OperatorBlock:
    here = data.get("in_place") or {"refused": "no in-place lift is declared"}
    return OperatorBlock(tuple(data.get("objects", [])), data.get("requires_object", True),
                         data.get("fixed", "").strip(), data.get("lift", "fresh_environment"),
                         InPlace(here.get("root"), here.get("restore"), tuple(here.get("host", [])),
                                 here.get("refused")), tuple(data.get("remedies", [])), tuple(data.get("verbs", [])),
                         data.get("other_objects"), data.get("misread"))


def card_problems(data: dict, path: Path, families: dict[str, Workaround]) -> list[str]:
    problems: list[str] = []
    if data["id"] != path.stem:
        problems.append(f"id: {data['id']!r} differs from the file name {path.stem!r}")
    for i, sig in enumerate(data["signatures"]):
        check_regex(sig["pattern"], f"signatures[{i}].pattern", problems)
        if sig.get("injected") and "(?P<name>" not in sig["pattern"]:
            problems.append(f"signatures[{i}].injected: the pattern needs a named group (?P<name>...)")
        if not sig["pattern"] and not sig.get("exit_codes"):  # an empty regex would match every text
            problems.append(f"signatures[{i}].pattern: empty, and no exit_codes: it would match everything")
    for i, work in enumerate(data["workarounds"]):
        check_regex(work["pattern"], f"workarounds[{i}].pattern", problems)
    for i, pattern in enumerate(data["diagnosis"]):
        check_regex(pattern, f"diagnosis[{i}]", problems)
    for i, pattern in enumerate(data.get("self_caused", [])):
        check_regex(pattern, f"self_caused[{i}]", problems)
    for i, pattern in enumerate((data.get("operator") or {}).get("remedies", [])):
        check_regex(pattern, f"operator.remedies[{i}]", problems)
    for i, name in enumerate(data["workaround_families"]):
        if name not in families:
            problems.append(f"workaround_families[{i}]: unknown family {name!r} "
                            f"(known: {', '.join(sorted(families))})")
    if data["id"] != "none" and not data["signatures"]:
        problems.append("signatures: a blocker card needs at least one signature")
    if data["id"] != "none" and not data.get("probe"):
        problems.append("probe: a blocker card needs a probe")
    if data["id"] != "none" and "operator" not in data:
        problems.append("operator: a blocker card needs an operator block (what an escalation must name, the reply)")
    elif data["id"] != "none" and "in_place" not in data["operator"]:
        problems.append("operator.in_place: a blocker card needs an in-place lift, or the measured reason it has none")
    return problems


def card_paths(cards_dir: Path = CARDS) -> list[Path]:
    return sorted(p for p in cards_dir.glob("*.yaml") if p.name != FAMILIES_FILE)


@functools.cache
def load_cards(cards_dir: Path = CARDS) -> dict[str, Card]:
    return {card.id: card for card in (load_card(p, cards_dir) for p in card_paths(cards_dir))}


def get_card(card_id: str, cards_dir: Path = CARDS) -> Card:
    cards = load_cards(cards_dir)
    if card_id not in cards:
        raise KeyError(f"unknown condition {card_id!r}; known: {', '.join(sorted(cards))}")
    return cards[card_id]
