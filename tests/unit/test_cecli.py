"""cecli, the agent installed from PyPI wheels: its pins in agents.lock, the pip flags that choose
wheels for the images' python3, its launcher, the relay's translation of a policy's calls into its
tools and of its results back, and its saved session read by the cecli importer (real sessions of
our own probe runs: tests/data/agent-transcripts, provenance.jsonl there)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from impasse.agents import tool_names
from impasse.agents.install_wheels import for_images, launcher, marker_lines, requirement
from impasse.agents.pins import AgentSpecError, PinnedFile, WheelsPin, locked_pins, parse_lock
from impasse.agents.specs import SPECS, WheelPackage, load_specs
from impasse.analysis.importers import detect, load_foreign
from impasse.analysis.normal_form import COMMAND
from impasse.dialects.cecli import cecli_output, content_of
from impasse.models.turns import ToolCall
from impasse.vocabulary import Ending, Tool

TRANSCRIPTS = Path(__file__).resolve().parents[1] / "data" / "agent-transcripts"
DIGEST = "a" * 64
PACKAGE = WheelPackage("cecli-dev=={version}", "3.11.2", "cecli.main:main")


def result(text: str) -> str:
    """A tool result as cecli sends it back to its model."""
    return json.dumps({"result": [{"content": text, "_": {}}], "errors": [], "details": []})


# Its pins

def test_every_wheel_it_installs_is_pinned_at_its_version():
    pin = locked_pins()["cecli"]["1.10.0"]
    assert isinstance(pin, WheelsPin) and len(pin.wheels) == 143
    names = [w.path for w in pin.wheels]
    assert "cecli_dev-1.10.0-py3-none-any.whl" in names and len(set(names)) == len(names)
    assert all(n.endswith(".whl") and w.size > 0 for n, w in zip(names, pin.wheels, strict=True))
    # binary wheels for the images' CPython 3.11 on x86-64 Linux, or pure ones
    assert all("-py3-none-any" in n or "-py2.py3-none-any" in n or ("x86_64" in n and ("cp311" in n or "abi3" in n))
               or "none-manylinux" in n for n in names)


def test_a_version_pinned_by_wheels_and_by_npm_at_once_is_refused():
    lines = (f"x@1 npm:x@1 {DIGEST} 10\nx@1 bin/x {DIGEST} 5\n"
             f"x@1 pypi:x-1-py3-none-any.whl {DIGEST} 7\n")
    with pytest.raises(AgentSpecError, match="x@1 pins both wheels and npm packages"):
        parse_lock(lines)


def test_a_wheel_line_reads_back_as_the_wheel_pinned():
    pins = parse_lock(f"y@2 pypi:y_lib-2.0-cp311-cp311-manylinux_2_17_x86_64.whl {DIGEST} 99\n")
    assert pins == {"y": {"2": WheelsPin((PinnedFile("y_lib-2.0-cp311-cp311-manylinux_2_17_x86_64.whl", DIGEST, 99),))}}


# How its wheels are fetched and run

def test_pip_fetches_exactly_the_pinned_file_for_the_images_python():
    wheel = PinnedFile("tree_sitter_language_pack-0.13.0-cp39-abi3-manylinux_2_17_x86_64.whl", DIGEST, 1)
    assert requirement(wheel) == f"tree_sitter_language_pack==0.13.0 --hash=sha256:{DIGEST}"
    flags = for_images(PACKAGE)
    assert flags[flags.index("--python-version") + 1] == "3.11.2" and flags[flags.index("--abi") + 1] == "cp311"
    platforms = {flags[i + 1] for i, f in enumerate(flags) if f == "--platform"}
    assert {"manylinux2014_x86_64", "manylinux_2_28_x86_64", "manylinux_2_36_x86_64"} <= platforms
    assert "manylinux_2_37_x86_64" not in platforms  # newer than bookworm's glibc: it would not load
    assert "--only-binary=:all:" in flags  # nothing built on the host for the images


def test_a_file_name_that_is_no_wheel_is_refused():
    with pytest.raises(Exception, match="not a wheel's file name"):
        requirement(PinnedFile("README", DIGEST, 1))


def test_the_launcher_runs_its_function_with_its_own_folder_and_temporary_files(tmp_path):
    text = launcher(PACKAGE, "/opt/impasse-agents/site")
    assert "site.addsitedir('/opt/impasse-agents/site')" in text
    assert "tempfile.tempdir = os.environ.pop('IMPASSE_AGENT_TMPDIR', None)" in text  # its commands never see it
    assert text.endswith("from cecli.main import main\nsys.exit(main())\n")
    compile(text, "launcher.py", "exec")
    assert marker_lines(PACKAGE, WheelsPin(()))[-1].startswith("launcher ")  # a new launcher remakes the folder


def test_its_spec_keeps_its_folder_in_the_work_tree_and_runs_the_images_python_isolated():
    spec = load_specs()["cecli"]
    assert spec.package == PACKAGE and spec.launch.worktree == (".cecli",)
    assert spec.launch.command[0] == "python3 -I -S {entry}"
    assert spec.mcp.tool_prefix == "impasse--"


def test_a_worktree_folder_must_be_a_plain_name(tmp_path):
    data = yaml.safe_load((SPECS / "cecli.yaml").read_text())
    data["launch"]["worktree"] = ["../escape"]
    (tmp_path / "cecli.yaml").write_text(yaml.safe_dump(data))
    with pytest.raises(AgentSpecError, match=r"cecli.yaml: launch.worktree\[0\]"):
        load_specs(tmp_path)


# The relay's translation

def test_a_policys_calls_become_its_shell_and_mcp_tools():
    def agent(call: ToolCall) -> list[tuple]:
        calls = tool_names.to_agent(call, tool_names.tools_of("cecli"), tool_names.Offered(), "/workspace")
        return [(c.name, c.arguments) for c in calls]

    assert agent(ToolCall("1", Tool.BASH, {"command": "pytest -q"})) == \
        [("local--Command", {"command": "pytest -q", "timeout": 120, "pty": False})]
    (name, args), = agent(ToolCall("2", Tool.EDIT_FILE, {"path": "a.py", "old_str": "x", "new_str": "y"}))
    assert name == "local--Command" and args["command"].startswith("python3 /opt/impasse/edit_file.py ")
    assert agent(ToolCall("3", Tool.ESCALATE_TO_HUMAN, {"reason": "root owns it"})) == \
        [("impasse--escalate_to_human", {"reason": "root owns it"})]


def test_its_calls_read_back_in_impasse_s_names():
    shell = tool_names.AgentCall("1", "local--Command", {"command": "ls"})
    asked = tool_names.AgentCall("2", "impasse--escalate_to_human", {"reason": "stuck"})
    assert (tool_names.to_impasse(shell).name, tool_names.to_impasse(shell).arguments) == (Tool.BASH, {"command": "ls"})
    assert (tool_names.to_impasse(asked).name, tool_names.to_impasse(asked).arguments) == \
        (Tool.ESCALATE_TO_HUMAN, {"reason": "stuck"})


@pytest.mark.parametrize("text,output,code", [
    ("Shell command completed within 120s timeout (exit code 0). Output:\nok\r\n", "ok\n", 0),
    ("Shell command completed within 30s timeout with exit code 127. Output:\n/bin/sh: 1: jq: not found\r\n",
     "/bin/sh: 1: jq: not found\n", 127),
    ("Shell command executed successfully (exit code 0). Output:\n", "", 0),
    ("Shell command failed with exit code 2. Output:\nusage\n", "usage\n", 2),
    ("Command exceeded 30s timeout and is continuing in background.\nCommand key: k\n",
     "Command exceeded 30s timeout and is continuing in background.\nCommand key: k\n", None),
    ("Completion recorded.", "Completion recorded.", None)])
def test_a_result_is_its_output_and_exit_code(text, output, code):
    assert cecli_output(result(text)) == (output, code)
    read = tool_names.result_of(tool_names.tools_of("cecli"), tool_names.ToolResult("1", result(text)))
    assert read == (output, code)


def test_a_result_object_with_errors_keeps_them():
    text = json.dumps({"result": [], "errors": ["Error in tool execution: boom"], "details": []})
    assert content_of(text) == "Error in tool execution: boom"
    assert content_of("not json") == "not json"


# Its saved session

@pytest.mark.parametrize("name,output,code", [
    ("cecli-session-ok.json", "LICENSE  PKG-INFO  README.rst  probe.txt  pyproject.toml  tests  tinydb\n", 0),
    ("cecli-session-fail.json", "/bin/sh: 1: jq: not found\n", 127)])
def test_a_real_session_is_its_steps(name, output, code):
    path = TRANSCRIPTS / name
    assert detect(json.loads(path.read_text())) == "cecli"
    t = load_foreign(path)
    assert (t.source, t.model, t.ending) == ("cecli", "openai/fake-model", Ending.ESCALATE_TO_HUMAN)
    shell, escalation, yielded = t.steps
    assert [a.tool for a in shell.actions] == [Tool.BASH] and shell.actions[0].command.startswith("echo probe-ran")
    assert [(o.output, o.exit_code, o.kind) for o in shell.observations] == [(output, code, COMMAND)]
    assert [(a.tool, a.message) for a in escalation.actions] == \
        [(Tool.ESCALATE_TO_HUMAN, "fake model: probing the escalation tool")]
    assert [json.loads(a.command)["name"] for a in yielded.actions] == ["local--Yield"]
