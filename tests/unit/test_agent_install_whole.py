"""A JS agent kept whole with a runtime beside it: every file of its package kept (the tarball's
digest checks them), files made executable, a runtime package (Node) fetched and pinned into a
subfolder, and a tarball that does not hold refused with nothing kept. The tarballs are built here
and handed out by a fake `npm pack`, so no network and no npm are needed."""

from __future__ import annotations

import dataclasses
import hashlib
import io
import json
import os
import stat
import sys
import tarfile
from pathlib import Path

import pytest

from impasse.agents.install import MARKER, MOUNT_POINT, AgentInstallError, ensure_agent
from impasse.agents.pins import Agent, AgentSpec, NativePackage, Placement
from impasse.agents.specs import Runtime, load_specs
from impasse.infra.images import AGENT_MOUNT_SCRIPTS

ENTRY = b"console.log('fake-js 1.0.0')\n"
CHUNK = b"export const x = 1;\n"
RG = b"\x7fELF not really rg\n"
NODE = b"\x7fELF not really node\n"
RUNTIME = Runtime("node-fake@22.0.0", "package", "bin/node", "node")
FILES = {"package/bundle/js.js": (ENTRY, 0o644), "package/bundle/chunks/a.js": (CHUNK, 0o644),
         "package/bin/launch": (b"#!/bin/sh\n", 0o755), "package/vendor/rg": (RG, 0o644),
         "package/package.json": (b'{"name": "@fake/js"}', 0o644)}
NODE_FILES = {"package/bin/node": (NODE, 0o755), "package/README.md": (b"not kept\n", 0o644),
              "package/include/node.h": (b"/* not kept */\n", 0o644)}


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def tgz(path: Path, files: dict[str, tuple[bytes, int]], links: dict[str, str] | None = None) -> Path:
    with tarfile.open(path, "w:gz") as tar:
        for name, (data, mode) in files.items():
            info = tarfile.TarInfo(name)
            info.size, info.mode = len(data), mode
            tar.addfile(info, io.BytesIO(data))
        for name, target in (links or {}).items():
            info = tarfile.TarInfo(name)
            info.type, info.linkname = tarfile.SYMTYPE, target
            tar.addfile(info)
    return path


@pytest.fixture
def npm(tmp_path, monkeypatch) -> Path:
    """A fake npm on PATH: `npm pack SPEC ... --pack-destination DEST` copies registry/<SPEC>.tgz
    there and says so as npm does; each call logged in npm-calls."""
    registry, bin_dir = tmp_path / "registry", tmp_path / "bin"
    registry.mkdir()
    bin_dir.mkdir()
    (bin_dir / "npm").write_text(f"""#!{sys.executable}
import json, shutil, sys
args = sys.argv[1:]
open({str(tmp_path / "npm-calls")!r}, "a").write(" ".join(args) + "\\n")
spec, dest = args[1], args[args.index("--pack-destination") + 1]
name = spec.replace("/", "+") + ".tgz"
try:
    shutil.copy({str(registry)!r} + "/" + name, dest + "/" + name)
except FileNotFoundError:
    print(json.dumps({{"error": {{"code": "E404", "summary": "no " + spec}}}}))
    sys.exit(1)
print(json.dumps([{{"filename": name}}]))
""")
    (bin_dir / "npm").chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    return registry


def publish(registry: Path, spec: str, files: dict[str, tuple[bytes, int]],
            links: dict[str, str] | None = None) -> bytes:
    return tgz(registry / (spec.replace("/", "+") + ".tgz"), files, links).read_bytes()


def calls(tmp_path: Path) -> list[str]:
    path = tmp_path / "npm-calls"
    return path.read_text().splitlines() if path.exists() else []


def fake_js(executable: tuple[str, ...] = ("vendor/rg",), runtime: Runtime | None = RUNTIME) -> AgentSpec:
    package = NativePackage("@fake/js@{version}", "package", "bundle/js.js", True, executable)
    declared = dataclasses.replace(load_specs()["codex"], name="fake-js", package=package, runtime=runtime)
    return AgentSpec(Agent("fake-js", Placement.CONTAINER, "1.0.0", package, declared), "1.0.0")


def write_lock(tmp_path: Path, package: bytes, node: bytes | None = None, entry: bytes = ENTRY,
               node_digest: str | None = None) -> Path:
    lines = [f"fake-js@1.0.0 npm:@fake/js@1.0.0 {sha256(package)} {len(package)}",
             f"fake-js@1.0.0 bundle/js.js {sha256(entry)} {len(entry)}"]
    if node is not None:
        lines += [f"fake-js@1.0.0 npm:node-fake@22.0.0 {node_digest or sha256(node)} {len(node)}",
                  f"fake-js@1.0.0 node-fake@22.0.0:bin/node {sha256(NODE)} {len(NODE)}"]
    lock = tmp_path / f"agents-{len(list(tmp_path.glob('agents-*.lock')))}.lock"
    lock.write_text("\n".join(lines) + "\n")
    return lock


def leftovers(cache: Path) -> list[str]:
    return sorted(p.name for p in cache.iterdir() if not p.name.endswith(".lock")) if cache.exists() else []


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.fixture
def published(npm) -> tuple[bytes, bytes]:
    beside = {"other/outside-the-root.txt": (b"not under package/\n", 0o644)}
    return (publish(npm, "@fake/js@1.0.0", FILES | beside), publish(npm, "node-fake@22.0.0", NODE_FILES))


def test_a_package_kept_whole_has_every_file_its_modes_and_the_runtime_beside_it(published, tmp_path):
    cache = tmp_path / "cache"
    installed = ensure_agent(fake_js(), cache=cache, lock=write_lock(tmp_path, *published))
    folder = cache / "fake-js-1.0.0"
    assert installed.folder == folder
    assert installed.entry == f"{MOUNT_POINT}/bundle/js.js"
    assert installed.runtime == f"{MOUNT_POINT}/node/bin/node"
    kept = sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file())
    assert kept == sorted([MARKER, *AGENT_MOUNT_SCRIPTS, "bundle/js.js", "bundle/chunks/a.js", "bin/launch",
                           "vendor/rg", "package.json", "node/bin/node"])  # none of node's other files
    assert all((folder / name.removeprefix("package/")).read_bytes() == data for name, (data, _) in FILES.items())
    assert (folder / "node" / "bin" / "node").read_bytes() == NODE
    assert mode(folder / "bin" / "launch") == 0o755 and mode(folder / "bundle" / "js.js") == 0o644  # the tarball's
    assert mode(folder / "vendor" / "rg") == 0o755  # 0644 in the tarball, made executable by the spec
    assert mode(folder / "node" / "bin" / "node") == 0o755
    assert all(mode(d) == 0o755 for d in (folder, folder / "node", folder / "bundle" / "chunks"))
    marker = (folder / MARKER).read_text()
    assert "keep all\n" in marker and "executable vendor/rg\n" in marker
    assert f"node/bin/node {sha256(NODE)} {len(NODE)}\n" in marker
    assert f"runtime node npm:node-fake@22.0.0 {sha256(published[1])}\n" in marker
    assert leftovers(cache) == ["fake-js-1.0.0"]
    assert [c.split()[1] for c in calls(tmp_path)] == ["@fake/js@1.0.0", "node-fake@22.0.0"]


def test_a_second_call_is_a_cache_hit_and_another_layout_is_made_again(published, tmp_path):
    cache, lock = tmp_path / "cache", write_lock(tmp_path, *published)
    first = ensure_agent(fake_js(), cache=cache, lock=lock)
    assert ensure_agent(fake_js(), cache=cache, lock=lock) == first and len(calls(tmp_path)) == 2
    (first.folder / "node" / "bin" / "node").write_bytes(b"trunc")  # the runtime's size is checked too
    ensure_agent(fake_js(), cache=cache, lock=lock)
    assert len(calls(tmp_path)) == 4
    ensure_agent(fake_js(executable=()), cache=cache, lock=lock)  # the spec changed: not the folder it made
    assert len(calls(tmp_path)) == 6 and mode(first.folder / "vendor" / "rg") == 0o644


def test_an_agent_without_a_runtime_needs_none_pinned(npm, tmp_path):
    package = publish(npm, "@fake/js@1.0.0", FILES)
    installed = ensure_agent(fake_js(runtime=None), cache=tmp_path / "cache", lock=write_lock(tmp_path, package))
    assert installed.runtime == "" and not (installed.folder / "node").exists()


@pytest.mark.parametrize(("name", "links", "problem"), [
    ("package/../escaped.txt", None, "package/../escaped.txt in the package climbs out of it"),
    ("/abs/escaped.txt", None, "/abs/escaped.txt in the package climbs out of it"),
    (None, {"package/bundle/link.js": "../../../escaped.txt"}, "package/bundle/link.js in the package is a link"),
    ("package/node/bin/node", None, "package/node/bin/node in the package would stand where impasse puts its own node"),
    ("package/impasse_mcp.py", None, "package/impasse_mcp.py in the package would stand where impasse puts its own"),
])
def test_a_file_escaping_the_root_a_link_or_one_in_impasse_s_place_is_refused(npm, tmp_path, name, links, problem):
    extra = {name: (b"x\n", 0o644)} if name else {}
    package = publish(npm, "@fake/js@1.0.0", FILES | extra, links)
    node = publish(npm, "node-fake@22.0.0", NODE_FILES)
    cache = tmp_path / "cache"
    with pytest.raises(AgentInstallError, match=f"^fake-js@1.0.0: {problem}.*nothing was kept$"):
        ensure_agent(fake_js(), cache=cache, lock=write_lock(tmp_path, package, node))
    assert leftovers(cache) == []
    assert not list(tmp_path.rglob("escaped.txt"))


def test_a_tarball_that_is_not_the_pinned_one_keeps_nothing(published, tmp_path):
    package, node = published
    lock = write_lock(tmp_path, package + b"other", node)  # another tarball's digest pinned
    cache = tmp_path / "cache"
    with pytest.raises(AgentInstallError, match=r"^fake-js@1\.0\.0: @fake\+js@1\.0\.0\.tgz: sha256 mismatch"):
        ensure_agent(fake_js(), cache=cache, lock=lock)
    assert leftovers(cache) == []


def test_a_runtime_tarball_that_is_not_the_pinned_one_keeps_nothing(published, tmp_path):
    lock = write_lock(tmp_path, *published, node_digest="0" * 64)
    cache = tmp_path / "cache"
    with pytest.raises(AgentInstallError, match=r"^fake-js@1\.0\.0: node-fake@22\.0\.0\.tgz: sha256 mismatch: "
                                                f"pinned {'0' * 64}, found {sha256(published[1])}"):
        ensure_agent(fake_js(), cache=cache, lock=lock)
    assert leftovers(cache) == []


def test_an_entry_that_is_not_the_pinned_one_keeps_nothing(published, tmp_path):
    cache = tmp_path / "cache"
    with pytest.raises(AgentInstallError, match=f"bundle/js.js: sha256 mismatch: pinned {sha256(b'other')}"):
        ensure_agent(fake_js(), cache=cache, lock=write_lock(tmp_path, *published, entry=b"other"))
    assert leftovers(cache) == []


def test_a_runtime_the_lock_does_not_pin_is_refused_before_any_npm(published, tmp_path):
    with pytest.raises(AgentInstallError, match=r"^fake-js@1\.0\.0: agents.lock pins no runtime node-fake@22\.0\.0 "
                                                r"for it \(its tarball npm:node-fake@22\.0\.0 and its program "
                                                r"node-fake@22\.0\.0:bin/node\)$"):
        ensure_agent(fake_js(), cache=tmp_path / "cache", lock=write_lock(tmp_path, published[0]))
    assert calls(tmp_path) == []


def test_an_executable_file_the_package_does_not_hold_is_named(published, tmp_path):
    cache = tmp_path / "cache"
    with pytest.raises(AgentInstallError, match="package.executable names vendor/fd, which is not a file kept"):
        ensure_agent(fake_js(executable=("vendor/fd",)), cache=cache, lock=write_lock(tmp_path, *published))
    assert leftovers(cache) == []


def test_the_runtime_s_npm_failure_is_one_line(npm, tmp_path):
    package = publish(npm, "@fake/js@1.0.0", FILES)
    lock = write_lock(tmp_path, package, b"never published")
    with pytest.raises(AgentInstallError) as caught:
        ensure_agent(fake_js(), cache=tmp_path / "cache", lock=lock)
    assert str(caught.value) == ("fake-js@1.0.0: npm pack node-fake@22.0.0 failed: E404 no node-fake@22.0.0 "
                                 "(is the npm registry reachable? npm config get registry)")
    assert leftovers(tmp_path / "cache") == []


def test_the_fake_npm_speaks_npm_s_json(npm, tmp_path):
    publish(npm, "@fake/js@1.0.0", FILES)
    dest = tmp_path / "dest"
    dest.mkdir()
    out = os.popen(f"npm pack @fake/js@1.0.0 --json --pack-destination {dest}").read()
    assert json.loads(out) == [{"filename": "@fake+js@1.0.0.tgz"}] and (dest / "@fake+js@1.0.0.tgz").is_file()


def test_a_pinned_path_climbing_out_of_the_package_is_refused(npm, tmp_path):
    package = publish(npm, "@fake/js@1.0.0", FILES)
    lock = tmp_path / "agents-escape.lock"
    lock.write_text(f"fake-js@1.0.0 npm:@fake/js@1.0.0 {sha256(package)} {len(package)}\n"
                    f"fake-js@1.0.0 ../escaped.txt {sha256(ENTRY)} {len(ENTRY)}\n")
    spec = fake_js(runtime=None)
    spec = dataclasses.replace(spec, agent=dataclasses.replace(
        spec.agent, package=dataclasses.replace(spec.agent.package, keep_all=False, executable=())))
    with pytest.raises(AgentInstallError, match=r"agents.lock pins \.\./escaped\.txt, which climbs out of the package"):
        ensure_agent(spec, cache=tmp_path / "cache", lock=lock)
    assert leftovers(tmp_path / "cache") == [] and not list(tmp_path.rglob("escaped.txt"))
