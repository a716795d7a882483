"""An agent made ready to run. A native agent (Claude Code, Codex) is fetched on the host with npm
(`npm pack` of its per-platform package), its tarball and each file kept from it checked against
`agents.lock`, and cached under `$IMPASSE_AGENT_CACHE` (default `~/.cache/impasse/agents/`,
following XDG_CACHE_HOME) as `<name>-<version>/`: the folder a run mounts read-only at
/opt/impasse-agents, with the MCP server and the model forwarder from harness/ beside the binary.
mini-swe-agent runs on the host: it is checked to be installed at its pin (`impasse[mini]`).

A fetch builds the folder in a private temporary folder and renames it into place only once every
byte is checked, under a file lock, so two processes never fetch the same agent at once and an
interrupted or rejected fetch leaves nothing behind. A second call is a cache hit: no npm.

A package can be kept whole (`keep: all`, a JS bundle of hundreds of files: its tarball's digest
checks them all), and an agent can need a runtime the image lacks (`runtime:`, Node for a JS bundle):
its own npm package, fetched and checked the same way, its pinned files put in a subfolder of the
agent's folder (`node/bin/node`), its program named to the launch as `{runtime}`. unpack.py writes
the files.
"""

from __future__ import annotations

import importlib.metadata
import json
import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from impasse.agents.install_wheels import fetch_wheels, launcher, marker_lines
from impasse.agents.pins import (
    LOCK,
    AgentPin,
    AgentSpec,
    PackagePin,
    PinnedFile,
    Placement,
    WheelsPin,
    parse_agent,
    pin_of,
)
from impasse.agents.specs import NativePackage, Runtime, WheelPackage
from impasse.agents.unpack import AgentInstallError, extract_pinned, extract_whole, make_executable, mismatch
from impasse.hashing import file_sha256
from impasse.infra.images import AGENT_MOUNT_SCRIPTS, Log
from impasse.locks import file_lock
from impasse.paths import HARNESS, user_cache

MOUNT_POINT = "/opt/impasse-agents"
MARKER = ".pins"  # written last: a folder without it (or with other pins) is not a finished install


def default_cache() -> Path:
    if explicit := os.environ.get("IMPASSE_AGENT_CACHE"):
        return Path(explicit)
    return user_cache("agents")


@dataclass(frozen=True)
class InstalledAgent:
    spec: AgentSpec
    folder: Path | None  # on the host, mounted read-only at MOUNT_POINT; None for a host or built-in agent
    entry: str  # the program: its path in the container for a native agent, on the host for mini-swe-agent
    runtime: str = ""  # the runtime's program in the container (`{runtime}` in a launch), for an agent with one

    @property
    def version(self) -> str | None:
        return self.spec.version

    def volumes(self) -> dict[str, dict[str, str]]:
        """docker-py's `volumes` for the read-only mount (empty for an agent that needs none)."""
        return {str(self.folder): {"bind": MOUNT_POINT, "mode": "ro"}} if self.folder else {}


def ensure_agent(spec: str | AgentSpec, log: Log = lambda m: None, cache: Path | None = None,
                 lock: Path = LOCK) -> InstalledAgent:
    spec = parse_agent(spec, lock) if isinstance(spec, str) else spec
    placement = spec.agent.placement
    if placement is Placement.BUILTIN:
        return InstalledAgent(spec, None, "")
    if placement is Placement.HOST:
        return InstalledAgent(spec, None, check_host_agent(spec))
    package = spec.agent.package
    assert package is not None, f"{spec.name} is a native agent without a package"
    folder = install_native(spec, pin_of(spec, lock), cache or default_cache(), log)
    runtime = spec.agent.runtime
    return InstalledAgent(spec, folder, f"{MOUNT_POINT}/{package.program}",
                          f"{MOUNT_POINT}/{runtime.program}" if runtime else "")


def check_host_agent(spec: AgentSpec) -> str:
    """mini-swe-agent installed in impasse's own environment at its pin; its `mini` program."""
    try:
        found = importlib.metadata.version(spec.name)
    except importlib.metadata.PackageNotFoundError:
        raise AgentInstallError(f"{spec.label} is not installed: pip install 'impasse[mini]'") from None
    if found != spec.version:
        raise AgentInstallError(f"{spec.name} {found} is installed, the pin is {spec.version}: "
                                f"pip install 'impasse[mini]' (mini-swe-agent=={spec.version})")
    beside = Path(sys.executable).with_name("mini")  # impasse's own venv, whether or not it is on PATH
    return str(beside) if beside.is_file() else shutil.which("mini") or "mini"


def install_native(spec: AgentSpec, pin: AgentPin | WheelsPin, cache: Path, log: Log) -> Path:
    final = cache / f"{spec.name}-{spec.version}"
    if not is_installed(final, spec, pin):
        cache.mkdir(parents=True, exist_ok=True)
        with file_lock(cache / f".{final.name}.lock"):
            if not is_installed(final, spec, pin):  # another process may have finished it while we waited
                remove_abandoned_fetches(final)
                fetch_into_place(spec, pin, final, log)
    sync_scripts(final)
    return final


def runtime_pin(spec: AgentSpec, pin: AgentPin) -> tuple[Runtime, PackagePin] | None:
    """The agent's runtime and its pins in the lock (under the agent's version, by its npm spec)."""
    runtime = spec.agent.runtime
    if runtime is None:
        return None
    found = pin.other(runtime.npm)
    if found is None or runtime.entry not in {f.path for f in found.files}:
        raise AgentInstallError(f"{spec.label}: agents.lock pins no runtime {runtime.npm} for it (its tarball "
                                f"npm:{runtime.npm} and its program {runtime.npm}:{runtime.entry})")
    return runtime, found


def placed(spec: AgentSpec, pin: AgentPin) -> list[PinnedFile]:
    """Every pinned file at its path in the agent's folder: the package's, then the runtime's in its subfolder."""
    found = runtime_pin(spec, pin)
    beside = [PinnedFile(f"{found[0].into}/{f.path}", f.sha256, f.size) for f in found[1].files] if found else []
    return [*pin.files, *beside]


def marker_text(spec: AgentSpec, pin: AgentPin | WheelsPin) -> str:
    """The pins and the folder's layout (whole or pinned files, the files made executable, the runtime):
    a folder made to another layout is made again. A Python agent's: its wheels, for its python."""
    if isinstance(pin, WheelsPin):
        assert isinstance(spec.agent.package, WheelPackage)
        return "".join(marker_lines(spec.agent.package, pin))
    package, found = spec.agent.package, runtime_pin(spec, pin)
    assert package is not None
    layout = [*(["keep all"] if package.keep_all else []), *(f"executable {path}" for path in package.executable),
              *([f"runtime {found[0].into} {found[1].tarball.path} {found[1].tarball.sha256}"] if found else [])]
    return "".join([*(f"{f.path} {f.sha256} {f.size}\n" for f in (pin.tarball, *placed(spec, pin))),
                    *(f"{line}\n" for line in layout)])


def is_installed(folder: Path, spec: AgentSpec, pin: AgentPin | WheelsPin) -> bool:
    """The marker names these pins and this layout, and every pinned file is there at its size. The
    digests were checked when the folder was made; rehashing ~400 MB on every run would cost about a
    second. (A package kept whole is checked by its pinned entry.)"""
    marker = folder / MARKER
    if not marker.is_file() or marker.read_text() != marker_text(spec, pin):
        return False
    if isinstance(pin, WheelsPin):  # pip wrote its files from checked wheels; its launcher, at its size, last
        package = spec.agent.package
        program = folder / package.program
        return program.is_file() and program.stat().st_size == len(launcher(package, f"{MOUNT_POINT}/{package.SITE}"))
    return all((folder / f.path).is_file() and (folder / f.path).stat().st_size == f.size for f in placed(spec, pin))


def remove_abandoned_fetches(final: Path) -> None:
    """A fetch killed outright (SIGKILL, power) leaves its temporary folder, hundreds of MB; under
    the lock no other fetch of this agent is running, so any found is abandoned."""
    for leftover in final.parent.glob(f".fetch-{final.name}~*"):
        shutil.rmtree(leftover, ignore_errors=True)


def fetch_into_place(spec: AgentSpec, pin: AgentPin | WheelsPin, final: Path, log: Log) -> None:
    marker = marker_text(spec, pin)  # before any npm: a runtime the lock does not pin is refused first
    with tempfile.TemporaryDirectory(dir=final.parent, prefix=f".fetch-{final.name}~") as tmp:
        staging = Path(tmp) / final.name
        if isinstance(pin, WheelsPin):
            fetch_wheels(spec, pin, Path(tmp), staging, MOUNT_POINT, log)
        else:
            fetch_package(spec, pin, Path(tmp), staging, log)
        sync_scripts(staging)
        (staging / MARKER).write_text(marker)
        for folder in (staging, *(p for p in staging.rglob("*") if p.is_dir())):
            folder.chmod(0o755)  # the agent user (uid 1000) reads the read-only mount
        if final.exists():  # a half-made or stale folder from before: under the lock, nobody uses it now
            shutil.rmtree(final)
        os.replace(staging, final)
    log(f"{spec.label} cached in {final}")


def fetch_package(spec: AgentSpec, pin: AgentPin, tmp: Path, staging: Path, log: Log) -> None:
    """An npm package's tarball fetched and checked, its files (and its runtime's) written into staging."""
    package = spec.agent.package
    assert isinstance(package, NativePackage)
    npm_spec = package.spec(spec.version or "")
    log(f"fetching {spec.label} ({npm_spec}) with npm ...")
    tarball = npm_pack(spec, npm_spec, tmp / "download")
    check_digest(spec, tarball, pin.tarball, tarball.name)
    found = runtime_pin(spec, pin)
    if package.keep_all:
        reserved = (MARKER, *AGENT_MOUNT_SCRIPTS, *([found[0].into] if found else []))
        extract_whole(spec, tarball, package.root, pin.files, staging, reserved)
    else:
        extract_pinned(spec, tarball, package.root, pin.files, staging)
    tarball.unlink()
    make_executable(spec, staging, package.executable)
    if found:
        fetch_runtime(spec, *found, tmp, staging, log)


def fetch_runtime(spec: AgentSpec, runtime: Runtime, pin: PackagePin, tmp: Path, staging: Path, log: Log) -> None:
    """The runtime's package fetched and checked like the agent's, its pinned files in their subfolder."""
    log(f"fetching {spec.label}'s runtime ({runtime.npm}) with npm ...")
    tarball = npm_pack(spec, runtime.npm, tmp / "download-runtime")
    check_digest(spec, tarball, pin.tarball, tarball.name)
    extract_pinned(spec, tarball, runtime.root, pin.files, staging / runtime.into)
    tarball.unlink()


def npm_pack(spec: AgentSpec, npm_spec: str, dest: Path) -> Path:
    """The package's tarball, by npm itself (its registry, proxy and certificate settings apply)."""
    dest.mkdir()
    argv = ["npm", "pack", npm_spec, "--json", "--ignore-scripts", "--pack-destination", str(dest)]
    try:
        done = subprocess.run(argv, cwd=dest, capture_output=True, text=True, timeout=1800)
    except FileNotFoundError:
        raise AgentInstallError(f"{spec.label}: npm is not on PATH; install Node.js and npm to fetch it "
                                f"(or copy a cached {spec.name}-{spec.version}/ into {default_cache()})") from None
    except subprocess.TimeoutExpired:
        raise AgentInstallError(f"{spec.label}: npm pack {npm_spec} took over 30 minutes; "
                                "check the npm registry is reachable (npm config get registry)") from None
    if done.returncode:
        raise AgentInstallError(f"{spec.label}: npm pack {npm_spec} failed: {npm_failure(done)} "
                                "(is the npm registry reachable? npm config get registry)")
    try:
        (packed,) = json.loads(done.stdout)
        tarball = dest / packed["filename"]
    except (ValueError, KeyError, TypeError):
        raise AgentInstallError(f"{spec.label}: npm pack {npm_spec} gave no tarball:\n{done.stdout[-500:]}") from None
    if not tarball.is_file():
        raise AgentInstallError(f"{spec.label}: npm pack {npm_spec} wrote no {tarball.name}")
    return tarball


def npm_failure(done: subprocess.CompletedProcess) -> str:
    """npm's own reason in one line: its --json error (code and summary), else its last words."""
    try:
        error = json.loads(done.stdout)["error"]
        return f"{error['code']} {error['summary']}"
    except (ValueError, KeyError, TypeError):
        lines = [line for line in done.stderr.splitlines() if line.strip() and "complete log" not in line]
        return lines[-1].strip() if lines else f"exit {done.returncode}"


def check_digest(spec: AgentSpec, path: Path, pinned: PinnedFile, what: str) -> None:
    found = file_sha256(path)
    if found != pinned.sha256:
        path.unlink()
        raise mismatch(spec, what, pinned.sha256, found)


def sync_scripts(folder: Path) -> None:
    """The MCP server and the forwarder as harness/ has them now: a cached folder outlives edits to
    them, so they are refreshed (atomically: a running container may be reading the old one)."""
    for name in AGENT_MOUNT_SCRIPTS:
        source, dest = HARNESS / name, folder / name
        data = source.read_bytes()
        if dest.is_file() and dest.read_bytes() == data:
            continue
        try:
            handle, tmp = tempfile.mkstemp(dir=folder, prefix=f".{name}.")
            with os.fdopen(handle, "wb") as out:
                out.write(data)
            os.chmod(tmp, 0o644)
            os.replace(tmp, dest)
        except OSError as err:
            raise AgentInstallError(f"{folder}: cannot put harness/{name} in the agent's folder ({err}); "
                                    "make the cache writable or point IMPASSE_AGENT_CACHE elsewhere") from None
