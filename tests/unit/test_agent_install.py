"""Fetching a native agent for real: npm packs a package (here a local one, so no network is
needed), its tarball and files are checked against a lock, and the agent's folder is cached."""

from __future__ import annotations

import hashlib
import importlib.metadata
import os
import shutil
import stat
import threading
from pathlib import Path

import pytest

from impasse.agents import install
from impasse.agents.install import MARKER, MOUNT_POINT, AgentInstallError, default_cache, ensure_agent
from impasse.agents.pins import Agent, AgentSpec, NativePackage, Placement, parse_agent
from impasse.infra.images import AGENT_MOUNT_SCRIPTS
from impasse.paths import HARNESS

pytestmark = pytest.mark.skipif(shutil.which("npm") is None, reason="npm is not installed")

ENTRY = "#!/bin/sh\necho fake-agent 1.0.0\n"
HELPER = b"beside it\n"
OTHER_ENTRY = b"#!/bin/sh\necho another\n"


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


@pytest.fixture(scope="module")
def package(tmp_path_factory) -> Path:
    """A local npm package: a program, a helper beside it, and a file that is not pinned."""
    root = tmp_path_factory.mktemp("npm") / "fake-agent"
    (root / "bin").mkdir(parents=True)
    (root / "package.json").write_text('{"name": "fake-agent", "version": "1.0.0"}')
    (root / "bin" / "agent").write_text(ENTRY)
    (root / "bin" / "agent").chmod(0o755)
    (root / "helper.txt").write_bytes(HELPER)
    (root / "README.md").write_text("not kept\n")
    return root


@pytest.fixture(scope="module")
def tarball(package) -> bytes:
    """What npm makes of the package (npm pack is reproducible: fixed mtimes, sorted entries)."""
    spec = AgentSpec(Agent("fake-agent", Placement.CONTAINER, "1.0.0"), "1.0.0")
    return install.npm_pack(spec, str(package), package.parent / "reference").read_bytes()


def write_lock(tmp_path: Path, tarball_digest: str, tarball_size: int, entry: bytes = ENTRY.encode(),
               extra: str = "") -> Path:
    lock = tmp_path / f"agents-{sha256(entry + extra.encode())[:8]}-{tarball_digest[:8]}.lock"
    lock.write_text(f"fake-agent@1.0.0 npm:fake-agent@1.0.0 {tarball_digest} {tarball_size}\n"
                    f"fake-agent@1.0.0 bin/agent {sha256(entry)} {len(entry)}\n"
                    f"fake-agent@1.0.0 helper.txt {sha256(HELPER)} {len(HELPER)}\n{extra}")
    return lock


def fake_spec(package: Path) -> AgentSpec:
    return AgentSpec(Agent("fake-agent", Placement.CONTAINER, "1.0.0",
                           NativePackage(str(package), "package", "bin/agent")), "1.0.0")


@pytest.fixture
def good_lock(tarball, tmp_path) -> Path:
    return write_lock(tmp_path, sha256(tarball), len(tarball))


def leftovers(cache: Path) -> list[str]:
    return sorted(p.name for p in cache.iterdir() if not p.name.endswith(".lock")) if cache.exists() else []


def test_the_agent_is_fetched_checked_and_cached_with_only_its_pinned_files(package, good_lock, tmp_path):
    cache = tmp_path / "cache"
    installed = ensure_agent(fake_spec(package), cache=cache, lock=good_lock)
    folder = cache / "fake-agent-1.0.0"
    assert installed.folder == folder and installed.version == "1.0.0"
    assert installed.entry == f"{MOUNT_POINT}/bin/agent"
    assert installed.volumes() == {str(folder): {"bind": MOUNT_POINT, "mode": "ro"}}
    kept = sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file())
    assert kept == sorted([MARKER, "bin/agent", "helper.txt", *AGENT_MOUNT_SCRIPTS])  # no README, no tarball
    assert (folder / "bin" / "agent").read_text() == ENTRY
    assert stat.S_IMODE((folder / "bin" / "agent").stat().st_mode) == 0o755
    assert stat.S_IMODE((folder / "helper.txt").stat().st_mode) == 0o644
    assert all(stat.S_IMODE(d.stat().st_mode) == 0o755 for d in (folder, folder / "bin"))  # readable by uid 1000
    for name in AGENT_MOUNT_SCRIPTS:
        assert (folder / name).read_bytes() == (HARNESS / name).read_bytes()
    assert leftovers(cache) == ["fake-agent-1.0.0"]


def test_a_second_call_is_a_cache_hit_without_npm(package, good_lock, tmp_path, monkeypatch):
    cache = tmp_path / "cache"
    first = ensure_agent(fake_spec(package), cache=cache, lock=good_lock)
    monkeypatch.setenv("PATH", str(tmp_path / "no-npm-here"))
    assert ensure_agent(fake_spec(package), cache=cache, lock=good_lock) == first


def test_a_tarball_that_is_not_the_pinned_one_is_refused_and_not_kept(package, tarball, tmp_path):
    pinned = "0" * 64
    lock = write_lock(tmp_path, pinned, len(tarball))
    cache = tmp_path / "cache"
    with pytest.raises(AgentInstallError) as caught:
        ensure_agent(fake_spec(package), cache=cache, lock=lock)
    message = str(caught.value)
    assert message.startswith("fake-agent@1.0.0: fake-agent-1.0.0.tgz: sha256 mismatch")
    assert f"pinned {pinned}, found {sha256(tarball)}" in message
    assert leftovers(cache) == []


def test_a_binary_that_is_not_the_pinned_one_is_refused_and_nothing_is_kept(package, tarball, tmp_path):
    lock = write_lock(tmp_path, sha256(tarball), len(tarball), entry=OTHER_ENTRY)
    cache = tmp_path / "cache"
    with pytest.raises(AgentInstallError, match=f"fake-agent@1.0.0: bin/agent: sha256 mismatch: pinned "
                                                f"{sha256(OTHER_ENTRY)}, found {sha256(ENTRY.encode())}"):
        ensure_agent(fake_spec(package), cache=cache, lock=lock)
    assert leftovers(cache) == []


def test_a_pinned_file_the_package_lacks_is_named(package, tarball, tmp_path):
    lock = write_lock(tmp_path, sha256(tarball), len(tarball), extra=f"fake-agent@1.0.0 bin/gone {'1' * 64} 3\n")
    with pytest.raises(AgentInstallError, match="fake-agent@1.0.0: the package holds no package/bin/gone"):
        ensure_agent(fake_spec(package), cache=tmp_path / "cache", lock=lock)


def test_without_npm_the_error_says_what_to_install(package, good_lock, tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path / "no-npm-here"))
    with pytest.raises(AgentInstallError, match="fake-agent@1.0.0: npm is not on PATH; install Node.js and npm"):
        ensure_agent(fake_spec(package), cache=tmp_path / "cache", lock=good_lock)


def test_a_failed_npm_pack_says_so_in_one_line_with_npm_s_own_reason(tmp_path, good_lock):
    with pytest.raises(AgentInstallError) as caught:
        ensure_agent(fake_spec(tmp_path / "no-such-package"), cache=tmp_path / "cache", lock=good_lock)
    message = str(caught.value)
    assert "\n" not in message
    assert message.startswith(f"fake-agent@1.0.0: npm pack {tmp_path / 'no-such-package'} failed: ")
    assert "ENOENT" in message or "no-such-package" in message.split("failed: ")[1]  # npm's reason
    assert message.endswith("(is the npm registry reachable? npm config get registry)")


def test_an_unreachable_registry_is_named_as_such(tmp_path, good_lock, monkeypatch):
    monkeypatch.setenv("npm_config_registry", "http://127.0.0.1:9/")  # nothing listens on the discard port
    monkeypatch.setenv("npm_config_fetch_retries", "0")
    monkeypatch.setenv("npm_config_cache", str(tmp_path / "npm-cache"))  # nothing cached to fall back on
    spec = AgentSpec(Agent("fake-agent", Placement.CONTAINER, "1.0.0",
                           NativePackage("fake-agent-not-cached@{version}", "package", "bin/agent")), "1.0.0")
    with pytest.raises(AgentInstallError, match="npm pack fake-agent-not-cached@1.0.0 failed: ECONNREFUSED"):
        ensure_agent(spec, cache=tmp_path / "cache", lock=good_lock)


def test_three_fetches_at_once_run_npm_once(package, good_lock, tmp_path, monkeypatch):
    calls = tmp_path / "npm-calls"
    wrapper = tmp_path / "wrapper"
    wrapper.mkdir()
    (wrapper / "npm").write_text(f'#!/bin/sh\necho "$@" >> {calls}\nsleep 0.5\nexec {shutil.which("npm")} "$@"\n')
    (wrapper / "npm").chmod(0o755)
    monkeypatch.setenv("PATH", f"{wrapper}{os.pathsep}{os.environ['PATH']}")
    cache, results, errors = tmp_path / "cache", [], []

    def fetch() -> None:
        try:
            results.append(ensure_agent(fake_spec(package), cache=cache, lock=good_lock))
        except Exception as err:  # noqa: BLE001 - the test reports it
            errors.append(err)

    threads = [threading.Thread(target=fetch) for _ in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == [] and len(results) == 3 and len(set(results)) == 1
    assert len(calls.read_text().splitlines()) == 1


def test_a_half_made_folder_is_replaced(package, good_lock, tmp_path):
    cache = tmp_path / "cache"
    stale = cache / "fake-agent-1.0.0"
    (stale / "bin").mkdir(parents=True)
    (stale / "bin" / "agent").write_text("trunc")  # no marker: an interrupted copy by hand
    installed = ensure_agent(fake_spec(package), cache=cache, lock=good_lock)
    assert (installed.folder / "bin" / "agent").read_text() == ENTRY
    (installed.folder / "bin" / "agent").write_text("#!/bin/sh\n")  # truncated since: the size tells
    assert (ensure_agent(fake_spec(package), cache=cache, lock=good_lock).folder / "bin" / "agent").read_text() == ENTRY


def test_what_a_killed_fetch_left_is_removed_by_the_next(package, good_lock, tmp_path):
    cache = tmp_path / "cache"
    abandoned = cache / ".fetch-fake-agent-1.0.0~k1ll3d" / "download"
    abandoned.mkdir(parents=True)
    (abandoned / "fake-agent-1.0.0.tgz").write_bytes(b"half a tarball")
    other = cache / ".fetch-fake-agent-1.0.0-rc1~running"  # another version's fetch, under its own lock
    other.mkdir()
    ensure_agent(fake_spec(package), cache=cache, lock=good_lock)
    assert leftovers(cache) == [other.name, "fake-agent-1.0.0"]


def test_the_scripts_in_a_cached_folder_follow_harness(package, good_lock, tmp_path):
    cache = tmp_path / "cache"
    folder = ensure_agent(fake_spec(package), cache=cache, lock=good_lock).folder
    (folder / "impasse_mcp.py").write_text("# an older server\n")
    ensure_agent(fake_spec(package), cache=cache, lock=good_lock)
    assert (folder / "impasse_mcp.py").read_bytes() == (HARNESS / "impasse_mcp.py").read_bytes()


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into a read-only folder anyway")
def test_a_cache_it_cannot_write_says_so(package, good_lock, tmp_path):
    cache = tmp_path / "cache"
    folder = ensure_agent(fake_spec(package), cache=cache, lock=good_lock).folder
    (folder / "impasse_mcp.py").unlink()
    folder.chmod(0o555)
    try:
        with pytest.raises(AgentInstallError, match="cannot put harness/impasse_mcp.py in the agent's folder"):
            ensure_agent(fake_spec(package), cache=cache, lock=good_lock)
    finally:
        folder.chmod(0o755)


def test_the_cache_follows_impasse_agent_cache_then_xdg(monkeypatch, tmp_path):
    monkeypatch.delenv("IMPASSE_AGENT_CACHE", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert default_cache() == tmp_path / "xdg" / "impasse" / "agents"
    monkeypatch.setenv("IMPASSE_AGENT_CACHE", str(tmp_path / "mine"))
    assert default_cache() == tmp_path / "mine"


def test_the_built_in_loop_needs_nothing_installed():
    installed = ensure_agent("impasse")
    assert installed.folder is None and installed.volumes() == {} and installed.version is None


def test_mini_swe_agent_is_checked_at_its_pin_on_the_host():
    try:
        found = importlib.metadata.version("mini-swe-agent")
    except importlib.metadata.PackageNotFoundError:
        found = None
    if found == parse_agent("mini-swe-agent").version:
        assert ensure_agent("mini-swe-agent").entry.endswith("mini")
        return
    with pytest.raises(AgentInstallError, match=r"pip install 'impasse\[mini\]'"):
        ensure_agent("mini-swe-agent")
