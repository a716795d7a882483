"""An agent made ready to run. A native agent (Claude Code, Codex) is fetched on the host with npm
(`npm pack` of its per-platform package), its tarball and each file kept from it checked against
`agents.lock`, and cached under `$IMPASSE_AGENT_CACHE` (default `~/.cache/impasse/agents/`,
following XDG_CACHE_HOME) as `<name>-<version>/`: the folder a run mounts read-only at
/opt/impasse-agents, with the MCP server and the model forwarder from harness/ beside the binary.
mini-swe-agent runs on the host: it is checked to be installed at its pin (`impasse[mini]`).

A fetch builds the folder in a private temporary folder and renames it into place only once every
byte is checked, under a file lock, so two processes never fetch the same agent at once and an
interrupted or rejected fetch leaves nothing behind. A second call is a cache hit: no npm.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from impasse.agents.pins import LOCK, AgentPin, AgentSpec, PinnedFile, Placement, parse_agent, pin_of
from impasse.hashing import file_sha256
from impasse.infra.images import AGENT_MOUNT_SCRIPTS, Log
from impasse.locks import file_lock
from impasse.paths import HARNESS

MOUNT_POINT = "/opt/impasse-agents"
MARKER = ".pins"  # written last: a folder without it (or with other pins) is not a finished install
BLOCK = 1 << 20


def default_cache() -> Path:
    if explicit := os.environ.get("IMPASSE_AGENT_CACHE"):
        return Path(explicit)
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "impasse" / "agents"


class AgentInstallError(RuntimeError):
    """The agent could not be made ready: npm failed, a checksum did not match, a pin is missing."""


@dataclass(frozen=True)
class InstalledAgent:
    spec: AgentSpec
    folder: Path | None  # on the host, mounted read-only at MOUNT_POINT; None for a host or built-in agent
    entry: str  # the program: its path in the container for a native agent, on the host for mini-swe-agent

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
    return InstalledAgent(spec, folder, f"{MOUNT_POINT}/{package.entry}")


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


def install_native(spec: AgentSpec, pin: AgentPin, cache: Path, log: Log) -> Path:
    final = cache / f"{spec.name}-{spec.version}"
    if not is_installed(final, pin):
        cache.mkdir(parents=True, exist_ok=True)
        with file_lock(cache / f".{final.name}.lock"):
            if not is_installed(final, pin):  # another process may have finished it while we waited
                remove_abandoned_fetches(final)
                fetch_into_place(spec, pin, final, log)
    sync_scripts(final)
    return final


def marker_text(pin: AgentPin) -> str:
    return "".join(f"{f.path} {f.sha256} {f.size}\n" for f in (pin.tarball, *pin.files))


def is_installed(folder: Path, pin: AgentPin) -> bool:
    """The marker names these pins and every file is there at its size. The digests were checked
    when the folder was made; rehashing ~400 MB on every run would cost about a second."""
    marker = folder / MARKER
    if not marker.is_file() or marker.read_text() != marker_text(pin):
        return False
    return all((folder / f.path).is_file() and (folder / f.path).stat().st_size == f.size for f in pin.files)


def remove_abandoned_fetches(final: Path) -> None:
    """A fetch killed outright (SIGKILL, power) leaves its temporary folder, hundreds of MB; under
    the lock no other fetch of this agent is running, so any found is abandoned."""
    for leftover in final.parent.glob(f".fetch-{final.name}~*"):
        shutil.rmtree(leftover, ignore_errors=True)


def fetch_into_place(spec: AgentSpec, pin: AgentPin, final: Path, log: Log) -> None:
    package = spec.agent.package
    assert package is not None
    with tempfile.TemporaryDirectory(dir=final.parent, prefix=f".fetch-{final.name}~") as tmp:
        log(f"fetching {spec.label} ({package.spec(spec.version or '')}) with npm ...")
        tarball = npm_pack(spec, package.spec(spec.version or ""), Path(tmp) / "download")
        check_digest(spec, tarball, pin.tarball, tarball.name)
        staging = Path(tmp) / final.name
        extract_pinned(spec, tarball, package.root, pin.files, staging)
        tarball.unlink()
        sync_scripts(staging)
        (staging / MARKER).write_text(marker_text(pin))
        for folder in (staging, *(p for p in staging.rglob("*") if p.is_dir())):
            folder.chmod(0o755)  # the agent user (uid 1000) reads the read-only mount
        if final.exists():  # a half-made or stale folder from before: under the lock, nobody uses it now
            shutil.rmtree(final)
        os.replace(staging, final)
    log(f"{spec.label} cached in {final}")


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


def mismatch(spec: AgentSpec, what: str, pinned: str, found: str) -> AgentInstallError:
    return AgentInstallError(f"{spec.label}: {what}: sha256 mismatch: pinned {pinned}, found {found}. "
                             "It is not the file agents.lock pins; nothing was kept.")


def extract_pinned(spec: AgentSpec, tarball: Path, root: str, files: tuple[PinnedFile, ...], staging: Path) -> None:
    """Only the pinned files, each hashed as it is written and checked against its pin."""
    with tarfile.open(tarball) as tar:
        for pinned in files:
            member_name = f"{root}/{pinned.path}"
            try:
                member = tar.getmember(member_name)
            except KeyError:
                raise AgentInstallError(f"{spec.label}: the package holds no {member_name}") from None
            source = tar.extractfile(member) if member.isfile() else None
            if source is None:
                raise AgentInstallError(f"{spec.label}: {member_name} in the package is not a regular file")
            dest = staging / pinned.path
            dest.parent.mkdir(parents=True, exist_ok=True)
            with source, dest.open("wb") as out:
                digest, size = copy_hashed(source, out)
            if digest != pinned.sha256:
                raise mismatch(spec, pinned.path, pinned.sha256, digest)
            if size != pinned.size:
                raise AgentInstallError(f"{spec.label}: {pinned.path}: {size} bytes, pinned {pinned.size}; "
                                        "nothing was kept.")
            dest.chmod(0o755 if member.mode & 0o111 else 0o644)


def copy_hashed(source: IO[bytes], out: IO[bytes]) -> tuple[str, int]:
    """Copy in blocks, hashing on the way: one pass over a 400 MB binary, not two."""
    digest, size = hashlib.sha256(), 0
    while block := source.read(BLOCK):
        digest.update(block)
        out.write(block)
        size += len(block)
    return digest.hexdigest(), size


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
