"""Bad input to each agent in the container, through `impasse run` as a user meets it: a package
whose bytes are not the pinned ones (the agent's own, and its runtime's for an agent with one), an
npm registry that cannot be reached, an agent that exits before its first request and one that
hangs without one. Each is one error line naming the agent and the cause, exit 2 before any run (a
fetch) or 1 for a run that failed (a launch), valid records, and no container left. The agents and
their packages are read from the specs, so a new spec is covered as it is added.

The packages come from npm as in any fetch (its own cache shared, so each is downloaded once); the
bad bytes and the dead registry are put in by a wrapper around npm, for one package at a time. A
launch that fails runs from a copy of the agent's cached folder, its program replaced."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from impasse.agents.install import MARKER, MOUNT_POINT, ensure_agent, placed
from impasse.agents.install_wheels import for_images, from_store, keep_in_store, launcher, requirement, wheel_store
from impasse.agents.pins import parse_agent, pin_of
from impasse.agents.specs import Placement, WheelPackage, load_specs
from impasse.episode.rundir import read_run
from impasse.hashing import file_sha256

from .containers import labelled

pytestmark = pytest.mark.docker
TASK = "invoicekit-tax-rounding"
SPECS = {name: spec for name, spec in load_specs().items() if spec.placement is Placement.CONTAINER}
# Every npm package an agent is fetched from: its own, and its runtime's (Node for a JS bundle)
PACKAGES = [(name, npm) for name, spec in SPECS.items() if not isinstance(spec.package, WheelPackage)
            for npm in (spec.package.spec(spec.version), *([spec.runtime.npm] if spec.runtime else []))]
PYTHON_AGENTS = [name for name, spec in SPECS.items() if isinstance(spec.package, WheelPackage)]  # fetched by pip
DEAD_REGISTRY = "http://127.0.0.1:9/"  # nothing listens on the discard port
# npm itself, except for the package named in IMPASSE_TEST_CORRUPT (its tarball gets one byte
# flipped once npm has written it) or in IMPASSE_TEST_UNREACHABLE (fetched from a dead registry
# with an empty cache, so nothing cached stands in for it)
NPM = f'''#!{sys.executable}
import json, os, subprocess, sys
spec, env = sys.argv[2], dict(os.environ)
if spec == env.get("IMPASSE_TEST_UNREACHABLE"):
    env |= {{"npm_config_registry": "{DEAD_REGISTRY}", "npm_config_fetch_retries": "0",
            "npm_config_cache": env["IMPASSE_TEST_EMPTY_CACHE"], "npm_config_offline": "false"}}
done = subprocess.run([{shutil.which("npm")!r}, *sys.argv[1:]], env=env, capture_output=True, text=True)
sys.stdout.write(done.stdout)
sys.stderr.write(done.stderr)
if done.returncode == 0 and spec == env.get("IMPASSE_TEST_CORRUPT"):
    dest = sys.argv[sys.argv.index("--pack-destination") + 1]
    with open(os.path.join(dest, json.loads(done.stdout)[0]["filename"]), "r+b") as tarball:
        tarball.seek(1000)
        byte = tarball.read(1)[0]
        tarball.seek(1000)
        tarball.write(bytes([byte ^ 1]))
sys.exit(done.returncode)
'''


@pytest.fixture(scope="module")
def npm_wrapper(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("npm-wrapper")
    (folder / "npm").write_text(NPM)
    (folder / "npm").chmod(0o755)
    return folder


def impasse_run(agent: str, out: Path, env: dict[str, str], budget: int = 4) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "impasse", "run", "--agent", agent, "--model", "scripted:oracle",
                           "--condition", "none", "--task", TASK, "--budget", str(budget), "--out", str(out)],
                          capture_output=True, text=True, timeout=600, env={**os.environ, **env})


def error_line(stderr: str) -> str:
    """The one error on stderr (the rest is progress: `fetching … with npm …`), never a traceback."""
    assert "Traceback" not in stderr, stderr
    errors = [line for line in stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1, stderr
    return errors[0].removeprefix("error: ")


def package_id(case: tuple[str, str]) -> str:
    return f"{case[0]}:{case[1]}"


def left_in(cache: Path) -> list[str]:
    """What a refused fetch left in the cache: only its file lock is allowed."""
    return sorted(p.name for p in cache.iterdir() if not p.name.endswith(".lock")) if cache.exists() else []


@pytest.mark.parametrize(("agent", "npm"), PACKAGES, ids=map(package_id, PACKAGES))
def test_a_package_whose_bytes_are_not_the_pinned_ones_is_refused_in_one_line(npm_wrapper, tmp_path, agent, npm):
    spec = parse_agent(agent)
    pinned = pin_of(spec).tarball if npm == SPECS[agent].package.spec(spec.version) else pin_of(spec).other(npm).tarball
    cache, out = tmp_path / "cache", tmp_path / "runs"
    done = impasse_run(agent, out, {"PATH": f"{npm_wrapper}{os.pathsep}{os.environ['PATH']}",
                                    "IMPASSE_AGENT_CACHE": str(cache), "IMPASSE_TEST_CORRUPT": npm})
    assert done.returncode == 2, done.stderr
    error = error_line(done.stderr)
    assert error.startswith(f"{spec.label}: ") and f": sha256 mismatch: pinned {pinned.sha256}, found " in error
    assert error.endswith("nothing was kept.")
    assert left_in(cache) == [] and not out.exists()  # refused before any run or container


@pytest.mark.parametrize(("agent", "npm"), PACKAGES, ids=map(package_id, PACKAGES))
def test_a_registry_that_cannot_be_reached_is_one_line_naming_the_package(npm_wrapper, tmp_path, agent, npm):
    spec = parse_agent(agent)
    cache, out = tmp_path / "cache", tmp_path / "runs"
    (tmp_path / "empty-npm-cache").mkdir()
    done = impasse_run(agent, out, {"PATH": f"{npm_wrapper}{os.pathsep}{os.environ['PATH']}",
                                    "IMPASSE_AGENT_CACHE": str(cache), "IMPASSE_TEST_UNREACHABLE": npm,
                                    "IMPASSE_TEST_EMPTY_CACHE": str(tmp_path / "empty-npm-cache")})
    assert done.returncode == 2, done.stderr
    error = error_line(done.stderr)
    assert error.startswith(f"{spec.label}: npm pack {npm} failed: ECONNREFUSED"), error
    assert error.endswith("(is the npm registry reachable? npm config get registry)")
    assert left_in(cache) == [] and not out.exists()


def pip_alone(store: Path, **settings: str) -> dict[str, str]:
    """pip with none of the machine's configuration (its local indexes and find-links), only these; and
    an empty wheel store (`store`), so that every wheel must be fetched."""
    return {"PIP_CONFIG_FILE": os.devnull, "PIP_NO_CACHE_DIR": "1", "IMPASSE_WHEEL_CACHE": str(store), **settings}


@pytest.mark.parametrize("agent", PYTHON_AGENTS)
def test_a_wheel_whose_bytes_are_not_the_pinned_ones_is_refused_in_one_line(tmp_path, agent):
    spec = parse_agent(agent)
    wheels = tmp_path / "wheels"
    wheels.mkdir()
    download_pinned(spec, wheels)
    own_name = spec.agent.package.pypi.split("==")[0].replace("-", "_") + "-"
    own = next(w for w in pin_of(spec).wheels if w.path.startswith(own_name))  # its own wheel
    data = bytearray((wheels / own.path).read_bytes())
    data[1000] ^= 1
    (wheels / own.path).unlink()  # a hard link to the machine's wheel store: its bytes stay as they are
    (wheels / own.path).write_bytes(bytes(data))
    cache, out = tmp_path / "cache", tmp_path / "runs"
    done = impasse_run(agent, out, {"IMPASSE_AGENT_CACHE": str(cache),
                                    **pip_alone(tmp_path / "store", PIP_NO_INDEX="1",
                                              PIP_FIND_LINKS=str(wheels))})
    assert done.returncode == 2, done.stderr
    error = error_line(done.stderr)
    assert error.startswith(f"{spec.label}: {own.path}: sha256 mismatch: pinned {own.sha256}, found "), error
    assert error.endswith("nothing was kept.")
    assert left_in(cache) == [] and not out.exists() and left_in(tmp_path / "store") == []


@pytest.mark.parametrize("agent", PYTHON_AGENTS)
def test_a_package_index_that_cannot_be_reached_is_one_line(tmp_path, agent):
    spec = parse_agent(agent)
    cache, out = tmp_path / "cache", tmp_path / "runs"
    done = impasse_run(agent, out, {"IMPASSE_AGENT_CACHE": str(cache),
                                    **pip_alone(tmp_path / "store", PIP_INDEX_URL=f"{DEAD_REGISTRY}simple")})
    assert done.returncode == 2, done.stderr
    assert error_line(done.stderr) == (f"{spec.label}: pip download failed: the package index could not be reached "
                                       "(Connection refused) (is the package index reachable? pip config list)")
    assert left_in(cache) == [] and not out.exists()


def download_pinned(spec, folder: Path) -> None:
    """The agent's pinned wheels into `folder`: those the machine's wheel store holds, checked, and the
    rest by the machine's pip (its cache: fetched once)."""
    missing = from_store(wheel_store(), pin_of(spec).wheels, folder)
    if not missing:
        return
    requirements = folder / "requirements.txt"
    requirements.write_text("".join(f"{requirement(w)}\n" for w in missing))
    subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps", *for_images(spec.agent.package),
                    "-r", str(requirements), "-d", str(folder)], check=True, capture_output=True, timeout=1800)
    keep_in_store(wheel_store(), missing, folder)  # pip checked each against its pinned digest


def program_of(name: str) -> str:
    """The first program of the agent's command line, in its folder: its runtime's where it has one
    (in the runtime's own subfolder), else its own (a Python agent's launcher)."""
    runtime = SPECS[name].runtime
    return runtime.program if runtime else SPECS[name].package.program


@pytest.mark.parametrize("agent", SPECS)
def test_a_cached_program_cut_short_is_fetched_again_to_its_pinned_bytes(tmp_path, monkeypatch, agent):
    """A cache hit checks each pinned file's size (its digest was checked as it was written): one cut
    short (a copy interrupted, a full disk) makes the whole folder again from npm. A Python agent's
    wheels come from the wheel store, with pip unable to download anything: fetched once."""
    installed, program = ensure_agent(agent), program_of(agent)
    copy = tmp_path / "cache" / installed.folder.name
    shutil.copytree(installed.folder, copy, copy_function=os.link)  # hard links: the real cache is not written
    (copy / program).unlink()
    (copy / program).write_bytes(b"#!/bin/sh\n")
    if agent in PYTHON_AGENTS:
        store = tmp_path / "store"
        store.mkdir()
        download_pinned(installed.spec, store)
        for name, value in {"IMPASSE_WHEEL_CACHE": str(store), "PIP_NO_INDEX": "1",
                            "PIP_FIND_LINKS": str(tmp_path / "nowhere"), "PIP_CONFIG_FILE": os.devnull}.items():
            monkeypatch.setenv(name, value)
    again = ensure_agent(agent, cache=tmp_path / "cache")
    assert again.folder == copy
    if agent in PYTHON_AGENTS:  # its launcher is written by the install, from its spec
        package = installed.spec.agent.package
        assert (copy / program).read_text() == launcher(package, f"{MOUNT_POINT}/{package.SITE}")
        return
    pinned = {f.path: f.sha256 for f in placed(installed.spec, pin_of(installed.spec))}
    assert file_sha256(copy / program) == pinned[program]


EXITS = "#!/bin/sh\necho '{name}: cannot start (a stand-in that fails)' >&2\nexit 3\n"
HANGS = "#!/bin/sh\nexec sleep 3600\n"
# The same, for a Python agent's launcher (the image's python3 runs it)
PYTHON_STAND_INS = {
    EXITS: "import sys\nsys.stderr.write('{name}: cannot start (a stand-in that fails)\\n')\nsys.exit(3)\n",
    HANGS: "import time\ntime.sleep(3600)\n"}


def cache_with_program(name: str, script: str, cache: Path) -> Path:
    """A copy of the agent's cached folder (hard links: nothing of the real cache is written) whose
    program is `script`, at the pinned size so the copy is still a cache hit."""
    installed = ensure_agent(name)
    copy = cache / installed.folder.name
    shutil.copytree(installed.folder, copy, copy_function=os.link)
    program = copy / program_of(name)
    size = program.stat().st_size
    program.unlink()  # a new file, not the linked one
    if name in PYTHON_AGENTS:  # padded with a comment: python3 refuses a source with NUL bytes
        text = PYTHON_STAND_INS[script].format(name=name)
        program.write_text(text + "#" * (size - len(text) - 1) + "\n")
    else:
        program.write_text(script.format(name=name))
    os.truncate(program, size)
    program.chmod(0o755)
    assert (copy / MARKER).is_file()
    return cache


def failed_run(out: Path) -> Path:
    (run_dir,) = out.iterdir()
    record = read_run(run_dir)
    assert record.problems == []
    assert record.result.outcome == "harness_error" and record.steps == []
    return run_dir


@pytest.mark.parametrize("agent", SPECS)
def test_an_agent_that_exits_before_its_first_request_is_one_line_and_a_valid_run(api, tmp_path, agent):
    label, out = parse_agent(agent).label, tmp_path / "runs"
    cache = cache_with_program(agent, EXITS, tmp_path / "cache")
    done = impasse_run(agent, out, {"IMPASSE_AGENT_CACHE": str(cache)})
    assert done.returncode == 1, done.stderr
    assert error_line(done.stderr) == (f"{label}: harness_error: the agent exited 3: {agent}: cannot start "
                                       "(a stand-in that fails)")
    run_dir = failed_run(out)
    assert json.loads((run_dir / "meta.json").read_text())["agent"] == label
    assert (run_dir / "agent" / "stderr.txt").read_text() == f"{agent}: cannot start (a stand-in that fails)\n"
    assert labelled(api, run_dir) == []


@pytest.mark.parametrize("agent", SPECS)
def test_an_agent_that_hangs_without_a_request_is_stopped_at_the_start_up_timeout(api, tmp_path, agent):
    label, out = parse_agent(agent).label, tmp_path / "runs"
    cache = cache_with_program(agent, HANGS, tmp_path / "cache")
    started = time.monotonic()
    # The budget's wall clock would be 80 × (120 + 120) s: the start-up timeout stops it long before.
    done = impasse_run(agent, out, {"IMPASSE_AGENT_CACHE": str(cache), "IMPASSE_AGENT_START_TIMEOUT": "3"},
                       budget=80)
    assert done.returncode == 1, done.stderr
    assert error_line(done.stderr) == (f"{label}: harness_error: the agent sent no request within 3 s of its "
                                       "start (IMPASSE_AGENT_START_TIMEOUT)")
    assert time.monotonic() - started < 120
    run_dir = failed_run(out)
    assert not (run_dir / "relay.jsonl").exists()  # it never asked
    assert labelled(api, run_dir) == []
