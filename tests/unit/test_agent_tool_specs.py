"""An agent's tool mapping is its spec's `tools:` section: a new agent whose names, argument keys and
result words differ from every other is added with YAML alone, and round-trips a scripted policy's
calls through to_agent, to_impasse and result_of; opencode's mapping is declared the same way."""

from __future__ import annotations

import pytest

from impasse.agents.specs import AgentSpecError, load_specs
from impasse.agents.tool_names import (
    AgentCall,
    KnownNames,
    Offered,
    ToolResult,
    result_of,
    to_agent,
    to_impasse,
    tools_of,
)
from impasse.agents.views import in_impasse_words
from impasse.models.turns import ToolCall
from impasse.vocabulary import Tool

# An eighth agent, in YAML alone: its shell `local--Command {command}`, its edit `local--EditFile`,
# impasse's MCP tools as `impasse--<tool>`, and its own words for a command's result.
LOCUS = r"""
name: locus
docs: a coding agent declared in YAML alone (a unit test's)
placement: container
version: 1.0.0
package: {npm: "locus-linux-x64@{version}", root: package, entry: bin/locus}
wire: chat-completions
launch:
  config: {path: locus.json, format: json, content: '{"mcp": {"command": {mcp_command}, "env": {mcp_env}}}'}
  folders: {}
  environment: {LOCUS_BASE_URL: "http://127.0.0.1:{port}/v1"}
  command: ["{entry} --config {config} {prompt}"]
mcp: {config: locus.json, tool_prefix: impasse--}
tools:
  shell: {name: local--Command, command: command}
  edit: {name: local--EditFile, path: target, old: find, new: replace_with, extra: {all: false}}
  result:
    shell: 'Shell command completed within \d+s timeout \(exit code (?P<code>-?\d+)\)\. Output:\n(?P<output>.*)'
    done: [File edited.]
    not_found: [Text to find is not in the file]
transcripts: [{path: transcript.jsonl, importer: atif}]
refuses: {}
"""


@pytest.fixture()
def locus(tmp_path):
    (tmp_path / "locus.yaml").write_text(LOCUS)
    return load_specs(tmp_path)["locus"].tools


def test_an_agent_declared_in_yaml_alone_round_trips_a_policys_calls(locus):
    known = KnownNames.of([locus])
    bash = ToolCall("c1", Tool.BASH, {"command": "pytest -q"}, "")
    edit = ToolCall("c2", Tool.EDIT_FILE, {"path": "calc.py", "old_str": "a - b", "new_str": "a + b"}, "")
    ask = ToolCall("c3", Tool.ESCALATE_TO_HUMAN, {"reason": "root owns calc.py"}, "")
    sent = [c for call in (bash, edit, ask) for c in to_agent(call, locus, Offered(), "/workspace")]
    assert [(c.id, c.name, c.arguments) for c in sent] == [
        ("c1", "local--Command", {"command": "pytest -q"}),
        ("c2", "local--EditFile", {"target": "/workspace/calc.py", "find": "a - b", "replace_with": "a + b",
                                   "all": False}),
        ("c3", "impasse--escalate_to_human", {"reason": "root owns calc.py"})]
    back = [to_impasse(c, known) for c in sent]
    assert [(c.name, c.arguments) for c in back] == [
        (Tool.BASH, {"command": "pytest -q"}),
        (Tool.EDIT_FILE, {"path": "/workspace/calc.py", "old_str": "a - b", "new_str": "a + b"}),
        (Tool.ESCALATE_TO_HUMAN, {"reason": "root owns calc.py"})]
    ran = "Shell command completed within 30s timeout (exit code 1). Output:\nFAILED test_calc.py\n"
    assert result_of(locus, ToolResult("c1", ran)) == ("FAILED test_calc.py\n", 1)
    assert result_of(locus, ToolResult("c2", "File edited.")) == ("File edited.", 0)
    assert result_of(locus, ToolResult("c3", "Escalation recorded.")) == ("Escalation recorded.", None)


def test_its_words_for_an_edit_not_found_read_as_impasses_own_edit(locus):
    output, code = result_of(locus, ToolResult("c2", "Text to find is not in the file /workspace/calc.py"))
    assert code == 1
    edit = ToolCall("c2", Tool.EDIT_FILE, {"path": "calc.py", "old_str": "x", "new_str": "y"}, "")
    said, code = in_impasse_words(edit, output, code, locus.result.not_found)
    assert said.startswith("edit_file: old_str not found in calc.py\n") and code == 1


def test_a_write_and_a_hidden_read_are_declared_too(locus, tmp_path):
    data = LOCUS.replace("extra: {all: false}}", "read_first: {name: local--Read, path: target}}\n"
                         "  write: {name: local--Write, path: target, content: text}")
    folder = tmp_path / "with-write"
    folder.mkdir()
    (folder / "locus.yaml").write_text(data)
    tools = load_specs(folder)["locus"].tools
    change = ToolCall("c1", Tool.EDIT_FILE, {"path": "/w/a.py", "old_str": "x", "new_str": "y"}, "")
    create = ToolCall("c2", Tool.EDIT_FILE, {"path": "b.py", "old_str": "", "new_str": "z"}, "")
    sent = [c for call in (change, create) for c in to_agent(call, tools, Offered(), "/w")]
    assert [(c.id, c.name, c.arguments, c.hidden) for c in sent] == [
        ("c1_read", "local--Read", {"target": "/w/a.py"}, True),
        ("c1", "local--EditFile", {"target": "/w/a.py", "find": "x", "replace_with": "y"}, False),
        ("c2", "local--Write", {"target": "/w/b.py", "text": "z"}, False)]
    assert to_impasse(sent[2], KnownNames.of([tools])).arguments == {"path": "/w/b.py", "old_str": "", "new_str": "z"}


@pytest.mark.parametrize(("change", "problem"), [
    (("(?P<code>-?\\d+)\\)\\. Output:\\n(?P<output>.*)'", "(?P<code>-?\\d+)\\)\\.'"),
     "tools.result.shell: needs the named groups (?P<code>…) and (?P<output>…)"),
    (("(?P<output>.*)'", "(?P<output>.*'"), "tools.result.shell: not a regular expression"),
    (("command: command}", "command: command, extra: {timeout: \"{timeout_h}\"}}"),
     "tools.shell.local--Command.extra.timeout: unknown placeholder {timeout_h} (this field takes {timeout_ms}, "
     "{timeout_s})"),
    (("  shell: {name", "  translator: claude\n  shell: {name"), "tools.translator: 'claude' is not one of"),
])
def test_a_bad_tools_section_is_refused_by_field(tmp_path, change, problem):
    (tmp_path / "locus.yaml").write_text(LOCUS.replace(*change))
    with pytest.raises(AgentSpecError, match=r"locus\.yaml: ") as caught:
        load_specs(tmp_path)
    assert problem in str(caught.value)


OPENCODE = "opencode"


@pytest.mark.parametrize(("text", "expected"), [
    ("hi\n\n[impasse: exit 3]\n", ("hi\n", 3)),
    ("Edit applied successfully.", ("Edit applied successfully.", 0)),
    ("Wrote file successfully.", ("Wrote file successfully.", 0)),
    ("Could not find oldString in the file. It must match exactly.", (
        "Could not find oldString in the file. It must match exactly.", 1)),
    ("Escalation recorded.", ("Escalation recorded.", None)),
])
def test_opencodes_results_read_by_its_declared_words_and_impasses_exit_line(text, expected):
    assert result_of(tools_of(OPENCODE), ToolResult("o", text)) == expected


def test_opencodes_calls_in_its_names_and_back():
    tools = tools_of(OPENCODE)
    bash = to_agent(ToolCall("1", Tool.BASH, {"command": "ls"}, ""), tools, Offered(), "/w")[0]
    assert (bash.name, bash.arguments) == ("bash", {"command": "(\nls\n)\nprintf '\\n[impasse: exit %d]\\n' $?"})
    edit = to_agent(ToolCall("2", Tool.EDIT_FILE, {"path": "a", "old_str": "x", "new_str": "y"}, ""), tools,
                    Offered(), "/w")[0]
    assert (edit.name, edit.arguments) == ("edit", {"filePath": "/w/a", "oldString": "x", "newString": "y"})
    assert to_impasse(AgentCall("3", "impasse_task_complete", {"summary": "done"})).arguments == {"summary": "done"}
    assert to_impasse(edit).arguments == {"path": "/w/a", "old_str": "x", "new_str": "y"}
