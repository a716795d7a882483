"""Which agents impasse can run and at which versions. An agent spec is `NAME[@VERSION]`:
`impasse` (the built-in loop) or an agent declared in `specs/NAME.yaml` (`claude-code`, `codex`,
`mini-swe-agent`; impasse/agents/specs.py reads them). Claude Code and Codex run inside the
container as native binaries from their per-platform npm packages, each file pinned by sha256 and
size in `agents.lock`; mini-swe-agent runs on the host, pinned as the extra `impasse[mini]`.

The lock is one line per file, like tasks/pypi/wheels.lock:
`AGENT@VERSION PATH SHA256 BYTES`, where PATH is `npm:<package>@<version>` for the package's
tarball and otherwise a file inside it, relative to the package's root, installed at that same
relative path in the agent's folder.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from pathlib import Path

from impasse.agents.specs import AgentDeclaration, AgentSpecError, NativePackage, Placement, load_specs

LOCK = Path(__file__).resolve().parent / "agents.lock"
SHA256 = re.compile(r"^[0-9a-f]{64}$")
TARBALL = "npm:"  # the lock's prefix for a package's tarball


@dataclass(frozen=True)
class Agent:
    name: str
    placement: Placement
    default: str | None  # the version `NAME` alone means
    package: NativePackage | None = None
    declared: AgentDeclaration | None = None  # its spec (impasse/agents/specs/NAME.yaml); None for impasse's own


@dataclass(frozen=True)
class PinnedFile:
    path: str  # relative to the package root; the tarball's is `npm:<spec>`
    sha256: str
    size: int


@dataclass(frozen=True)
class AgentPin:
    """One version of a native agent: its tarball and the files kept from it."""
    tarball: PinnedFile
    files: tuple[PinnedFile, ...]


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


def parse_lock(text: str, where: str = "agents.lock") -> dict[str, dict[str, AgentPin]]:
    """agent name -> version -> pin. A malformed line, or a version with no tarball or no files,
    is refused: a lock that cannot check every byte is no lock."""
    tarballs: dict[tuple[str, str], PinnedFile] = {}
    files: dict[tuple[str, str], list[PinnedFile]] = {}
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        fields = line.split()
        name, _, version = fields[0].partition("@") if fields else ("", "", "")
        if len(fields) != 4 or not version or not SHA256.match(fields[2]) or not fields[3].isdigit():
            raise AgentSpecError(f"{where}:{number}: expected AGENT@VERSION PATH SHA256 BYTES, got {line!r}")
        pinned = PinnedFile(fields[1], fields[2], int(fields[3]))
        if pinned.path.startswith(TARBALL):
            tarballs[(name, version)] = pinned
        else:
            files.setdefault((name, version), []).append(pinned)
    pins: dict[str, dict[str, AgentPin]] = {}
    for key in sorted(set(tarballs) | set(files)):
        if key not in tarballs or key not in files:
            raise AgentSpecError(f"{where}: {'@'.join(key)} needs its tarball and at least one file pinned")
        pins.setdefault(key[0], {})[key[1]] = AgentPin(tarballs[key], tuple(files[key]))
    return pins


@functools.cache
def locked_pins(lock: Path = LOCK) -> dict[str, dict[str, AgentPin]]:
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


def pin_of(spec: AgentSpec, lock: Path = LOCK) -> AgentPin:
    """The lock's pin of a native agent's version (parse_agent has checked it exists)."""
    return locked_pins(lock)[spec.name][spec.version or ""]
