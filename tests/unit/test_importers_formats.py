"""The OpenHands, Claude Code, Codex and mini-swe-agent console importers, on the samples in
tests/data/importer-samples (hand-written to each format's documented structure; see provenance.jsonl),
and the step conventions of ../shared/real-trajectories/LABELING.md for mini-swe-agent and SWE-agent."""

import json
from pathlib import Path

import pytest

from impasse.analysis.driver import annotate_paths, discover
from impasse.analysis.importers import FORMATS, ImportProblem, is_foreign_file, load_foreign
from impasse.vocabulary import Ending, Tool

SAMPLES = Path(__file__).resolve().parents[1] / "data" / "importer-samples"


def tools(step) -> list[str]:
    return [a.tool for a in step.actions]


def test_every_format_is_named_for_the_cli():
    assert {"openhands", "claude-code", "codex", "mini-swe-agent-console"} <= set(FORMATS)


@pytest.mark.parametrize("name,fmt,steps", [
    ("openhands-events.json", "openhands", 6), ("claude-code-session.jsonl", "claude-code", 4),
    ("codex-rollout.jsonl", "codex", 4), ("codex-rollout-legacy.jsonl", "codex", 2),
    ("mini-console-agent.log", "mini-swe-agent-console", 4)])
def test_auto_detects_each_format_and_counts_its_steps(name, fmt, steps):
    trajectory = load_foreign(SAMPLES / name)
    assert trajectory.source == fmt and len(trajectory.steps) == steps
    assert [s.index for s in trajectory.steps] == list(range(1, steps + 1))
    assert load_foreign(SAMPLES / name, fmt).length == steps


def test_openhands_events():
    t = load_foreign(SAMPLES / "openhands-events.json")
    first, think, edit, read, _, finish = t.steps  # system, recall and user events are not steps
    assert first.actions[0].command == "cd /workspace && python report.py"
    assert first.observations[0].exit_code == 1 and "No module named 'yaml'" in first.observations[0].output
    assert tools(think) == [] and think.observations[0].output == "Your thought has been logged."
    assert (edit.actions[0].tool, edit.actions[0].path, edit.actions[0].content) == \
        (Tool.EDIT_FILE, "/workspace/report.py", "import json as yaml")
    assert tools(read) == ["other"] and json.loads(read.actions[0].command)["name"] == "read"
    assert tools(finish) == [Tool.TASK_COMPLETE] and t.ending == Ending.TASK_COMPLETE
    assert t.model == "claude-sonnet-4-20250514"


def test_claude_code_session():
    t = load_foreign(SAMPLES / "claude-code-session.jsonl")
    jq, fix, read, last = t.steps  # one step per run of assistant entries; the sidechain line is left out
    assert jq.actions[0].command == "jq . data.json" and jq.text == "I'll format the file with jq."
    assert jq.observations[0].exit_code == 127 and "jq: command not found" in jq.observations[0].output
    assert tools(fix) == [Tool.BASH, Tool.EDIT_FILE] and fix.actions[1].content == "print("
    assert [o.output for o in fix.observations][1] == "The file /work/app/app.py has been updated."
    assert tools(read) == ["other"] and read.observations[0].output.startswith("     1→print")
    assert tools(last) == [] and t.ending == Ending.UNKNOWN and t.model.startswith("claude-sonnet")


def test_codex_rollouts():
    t = load_foreign(SAMPLES / "codex-rollout.jsonl")
    curl, patch_and_test, plan, _ = t.steps
    assert curl.actions[0].command == "curl -sSfO https://example.org/data.csv"
    assert curl.observations[0].exit_code == 6
    assert [(a.tool, a.path or a.command) for a in patch_and_test.actions] == \
        [(Tool.EDIT_FILE, "tests/data.csv"), (Tool.BASH, "pytest -q")]
    assert patch_and_test.actions[0].content == "a,b\n1,2"
    assert [o.exit_code for o in patch_and_test.observations] == [0, 0]
    assert tools(plan) == ["other"] and plan.observations[0].exit_code is None
    assert (t.model, t.ending, t.run_id) == ("gpt-5-codex", Ending.UNKNOWN, "0199a0b1-2c3d-7e4f-8a9b-0c1d2e3f4a5b")
    legacy = load_foreign(SAMPLES / "codex-rollout-legacy.jsonl")
    assert legacy.steps[0].actions[0].command == "ls -la" and legacy.steps[0].observations[0].exit_code == 2


def test_mini_console_log():
    t = load_foreign(SAMPLES / "mini-console-agent.log")
    run, format_error, fix, submit = t.steps
    assert run.actions[0].command == "python stats.py" and run.observations[0].exit_code == 1
    assert "No module named 'numpy'" in run.observations[0].output and "\x1b" not in run.text
    assert tools(format_error) == [] and "EXACTLY ONE action" in format_error.observations[0].output
    assert fix.observations[0].output == "4.5\n"
    assert tools(submit) == [Tool.TASK_COMPLETE] and t.ending == Ending.TASK_COMPLETE
    assert all("backoff" not in o.output for s in t.steps for o in s.observations)  # after the last separator


@pytest.mark.parametrize("name,card,t_star,line", [
    ("openhands-events.json", "removed_dependency", 1, "No module named 'yaml'"),
    ("claude-code-session.jsonl", "missing_binary", 1, "jq: command not found"),
    ("codex-rollout.jsonl", "network_down_download", 1, "Could not resolve host"),
    ("mini-console-agent.log", "removed_dependency", 1, "No module named 'numpy'")])
def test_samples_annotate(name, card, t_star, line):
    batch = annotate_paths([SAMPLES / name], card=card)
    assert batch.skipped == []
    assert batch.annotations[0].row.t_star == t_star and line in batch.annotations[0].evidence["t_star"]["line"]


def put(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


@pytest.mark.parametrize("name,text,fmt,message", [
    ("oh.json", '[{"source": "agent", "action": "run", "args": "ls"}]', "auto", "not a valid openhands"),
    ("oh.json", '{"what": 1}', "openhands", "not an OpenHands event list"),
    ("cc.jsonl", '{"type": "assistant", "message": {"content": ["x"]}}\n', "auto", "not a valid claude-code"),
    ("cc.jsonl", '{"type": "summary"}\n', "claude-code", "not a Claude Code session"),
    ("cx.jsonl", '{"type": "response_item", "payload": "ls"}\n', "auto", "not a Codex rollout"),
    ("cx.jsonl", '{"type": "user", "message": {}}\n', "codex", "not a Codex rollout"),
    ("torn.jsonl", '{"type": "session_meta"}\n{ torn\n{"type": "turn_context"}\n', "auto", "torn.jsonl:2"),
    ("odd.jsonl", '{"type": "neither"}\n', "auto", "unknown JSON Lines format"),
    ("agent.log", "just some text\n", "auto", "unknown trajectory format"),
    ("agent.log", "just some text\n", "mini-swe-agent-console", "not a mini-swe-agent console log")])
def test_bad_shapes_are_clear_problems_naming_the_file(tmp_path, name, text, fmt, message):
    with pytest.raises(ImportProblem, match=message) as caught:
        load_foreign(put(tmp_path, name, text), fmt)
    assert name in str(caught.value)


def test_a_torn_last_line_is_a_warning(tmp_path):
    lines = (SAMPLES / "codex-rollout.jsonl").read_text()
    t = load_foreign(put(tmp_path, "live.jsonl", lines + '{"type": "response_it'))
    assert t.length == 4 and "live.jsonl:19: torn last line" in t.problems[0]


def test_folders_yield_sessions_and_logs_but_not_labels(tmp_path):
    for sample in SAMPLES.iterdir():
        put(tmp_path, sample.name, sample.read_text())
    put(tmp_path, "labels.jsonl", '{"file": "x", "t_star": 1}\n')
    put(tmp_path, "build.log", "make: nothing to be done\n")
    found = sorted(p.name for p, _ in discover([tmp_path]))
    assert "labels.jsonl" not in found and "build.log" not in found and "provenance.jsonl" not in found
    assert len(found) == 5 and not is_foreign_file(tmp_path / "README.md")


# LABELING.md rule 1: every assistant message is a step; its observation is every following user/tool message.
MINI_V1_FORMAT_ERROR = {"trajectory_format": "mini-swe-agent-1", "info": {"exit_status": "Submitted"}, "messages": [
    {"role": "system", "content": "sys"}, {"role": "user", "content": "task"},
    {"role": "assistant", "content": "THOUGHT: two at once\n```bash\nls\n```\n```bash\npwd\n```"},
    {"role": "user", "content": "Please always provide EXACTLY ONE action in triple backticks, found 2 actions."},
    {"role": "assistant", "content": "```bash\npython -c 'import yaml'\n```"},
    {"role": "user", "content": "<returncode>1</returncode><output>ModuleNotFoundError: No module named 'yaml'"
                                "</output>"},
    {"role": "user", "content": "A note from the harness."}]}
MINI_V2_FORMAT_ERROR = {"trajectory_format": "mini-swe-agent-1.1", "info": {"exit_status": "LimitsExceeded"},
                        "messages": [
    {"role": "user", "content": "task"},
    {"role": "assistant", "content": "", "extra": {"actions": [{"command": "ls"}]}},
    {"role": "tool", "content": "x", "extra": {"raw_output": "a.py\n", "returncode": 0}},
    {"role": "user", "content": "No tool calls found in the response. Every response MUST include a tool call."}]}


def test_mini_v1_format_error_turn_is_a_step_with_its_message(tmp_path):
    t = load_foreign(put(tmp_path, "a.traj.json", json.dumps(MINI_V1_FORMAT_ERROR)))
    assert [tools(s) for s in t.steps] == [[], [Tool.BASH]]  # two blocks: mini-swe-agent ran neither
    assert "EXACTLY ONE action" in t.steps[0].observations[0].output
    assert [o.exit_code for o in t.steps[1].observations] == [1, None]


def test_mini_v2_format_error_folds_into_the_previous_step(tmp_path):
    t = load_foreign(put(tmp_path, "b.traj.json", json.dumps(MINI_V2_FORMAT_ERROR)))
    assert t.length == 1 and [o.output[:8] for o in t.steps[0].observations] == ["a.py\n", "No tool "]


def test_swe_agent_empty_last_element_is_a_step(tmp_path):
    data = {"info": {"exit_status": "exit_context"}, "history": [], "trajectory": [
        {"action": "ls\n", "observation": "a.py", "thought": "look"},
        {"action": "", "observation": "", "thought": ""}]}
    t = load_foreign(put(tmp_path, "c.traj", json.dumps(data)))
    assert t.length == 2 and tools(t.steps[1]) == [] and t.ending == Ending.CONTEXT_EXHAUSTED
