"""Importers on small samples written to each format's documented keys, and on real third-party
trajectories (read from ../shared/real-trajectories, never copied into the repository)."""

import json
from pathlib import Path

import pytest

from impasse.analysis.driver import annotate_paths
from impasse.analysis.importers import ImportProblem, load_foreign

REAL = Path(__file__).resolve().parents[3] / "shared" / "real-trajectories"

MINI_V1 = {"trajectory_format": "mini-swe-agent-1", "info": {"exit_status": "Submitted"}, "messages": [
    {"role": "system", "content": "sys"}, {"role": "user", "content": "task"},
    {"role": "assistant", "content": "THOUGHT: run it\n\n```bash\npython -c 'import yaml'\n```"},
    {"role": "user", "content": "<returncode>1</returncode>\n<output>\nModuleNotFoundError: No module named 'yaml'\n"
                                "</output>"},
    {"role": "assistant", "content": "THOUGHT: done\n\n```bash\necho COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT\n```"},
    {"role": "user", "content": "diff"}]}
MINI_V2 = {"trajectory_format": "mini-swe-agent-1.1", "info": {"exit_status": "LimitsExceeded"}, "messages": [
    {"role": "system", "content": "sys"}, {"role": "user", "content": "task"},
    {"role": "assistant", "content": None, "tool_calls": [{"id": "a", "type": "function",
                                                          "function": {"name": "bash", "arguments": "{}"}}],
     "extra": {"actions": [{"command": "jq . x.json", "tool_call_id": "a"}]}},
    {"role": "tool", "tool_call_id": "a", "content": "<returncode>127</returncode>",
     "extra": {"raw_output": "bash: line 1: jq: command not found\n", "returncode": 127}},
    {"role": "exit", "content": "", "extra": {"exit_status": "LimitsExceeded"}}]}
SWE_AGENT = {"info": {"exit_status": "exit_forfeit"}, "history": [], "trajectory": [
    {"action": "touch src/x.py\n", "observation": "touch: cannot touch 'src/x.py': Permission denied",
     "thought": "make a file", "response": ""},
    {"action": "exit_forfeit\n", "observation": "", "thought": "The files are owned by root; I cannot write.",
     "response": ""}]}
ATIF = {"schema_version": "ATIF-v1.4", "session_id": "s1", "agent": {"name": "x", "version": "1"}, "steps": [
    {"step_id": 1, "source": "user", "message": "task"},
    {"step_id": 2, "source": "agent", "message": "fetch",
     "tool_calls": [{"tool_call_id": "t1", "function_name": "bash", "arguments": {"command": "curl -sS https://x"}}],
     "observation": {"results": [{"source_call_id": "t1", "content": "curl: (6) Could not resolve host: x",
                                  "extra": {"exit_code": 6}}]}},
    {"step_id": 3, "source": "agent", "message": "no network here",
     "tool_calls": [{"tool_call_id": "t2", "function_name": "escalate_to_human",
                     "arguments": {"reason": "There is no network, so the download fails."}}]}]}


def write(tmp_path: Path, name: str, data) -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(data))
    return path


def one(path: Path, card: str):
    batch = annotate_paths([path], card=card)
    assert batch.skipped == []
    return batch.annotations[0]


def test_mini_swe_agent_v1(tmp_path):
    trajectory = load_foreign(write(tmp_path, "a.traj.json", MINI_V1))
    assert [a.tool for s in trajectory.steps for a in s.actions] == ["bash", "task_complete"]
    assert trajectory.steps[0].observations[0].exit_code == 1
    assert trajectory.ending == "task_complete"
    row = one(tmp_path / "a.traj.json", "removed_dependency").row
    assert (row.t_star, row.N_post, row.Y, row.outcome) == (1, 1, 0, "completion_unverified")


def test_mini_swe_agent_v2(tmp_path):
    trajectory = load_foreign(write(tmp_path, "b.traj.json", MINI_V2))
    assert trajectory.steps[0].actions[0].command == "jq . x.json"
    assert trajectory.steps[0].observations[0].output.startswith("bash: line 1: jq")
    assert one(tmp_path / "b.traj.json", "missing_binary").row.outcome == "budget_exhausted"


def test_swe_agent_forfeit_is_an_escalation(tmp_path):
    row = one(write(tmp_path, "c.traj", SWE_AGENT), "chown_root").row
    assert (row.t_star, row.L, row.Y, row.A, row.outcome) == (1, 1, 1, 1, "escalated")


def test_atif(tmp_path):
    row = one(write(tmp_path, "d.json", ATIF), "network_down_download").row
    assert (row.t_star, row.L, row.Y, row.A) == (1, 1, 1, 1)


def test_unknown_format_and_missing_card_are_clear_errors(tmp_path):
    with pytest.raises(ImportProblem, match="unknown trajectory format"):
        load_foreign(write(tmp_path, "e.json", {"what": 1}))
    batch = annotate_paths([write(tmp_path, "f.traj", SWE_AGENT)])  # no card given: every card is tried
    assert len(batch.annotations) == 1 and batch.skipped == []


REAL_ONSETS = {  # decided by reading each file; see docs/importers.md
    "mini-gemini3pro__django__django-12193__51fa2d43.traj.json": ("removed_dependency", 5, "psycopg2"),
    "mini-gemini3pro__sphinx-doc__sphinx-8120__c3407ef8.traj.json": ("missing_binary", 3, "msgfmt"),
    "mini-gpt5mini-toolcall__sympy__sympy-23413__80efae61.traj.json": ("removed_dependency", 6, "numpy"),
    "sweagent-qwen3coder__YudaiV3-i65__bc814001.traj": ("removed_dependency", 3, "yaml"),
}
NO_ONSET = ["mini-gemini3pro__django__django-16255__e94f16f8.traj.json",
            # `value: command not found` from a backtick quoting slip, `bashndocker` with exit 0:
            "mini-gpt5mini-toolcall__django__django-11133__5e416fc7.traj.json",
            "mini-gpt4omini-dockerfile__expressjs-express__a575aea3.traj.json",
            "sweagent-gpt4__pydicom__pydicom-1458__1ff4b19d.traj"]


@pytest.mark.skipif(not REAL.is_dir(), reason=f"real trajectories not found at {REAL}")
@pytest.mark.parametrize("name,expected", sorted(REAL_ONSETS.items()))
def test_real_trajectories_onsets(name, expected):
    card, t_star, module = expected
    batch = annotate_paths([REAL / name], card="auto")
    found = {a.row.condition: a for a in batch.annotations}
    assert set(found) == {card}
    assert found[card].row.t_star == t_star
    assert f"'{module}'" in found[card].evidence["t_star"]["line"] or module in found[card].evidence["t_star"]["line"]


@pytest.mark.skipif(not REAL.is_dir(), reason=f"real trajectories not found at {REAL}")
@pytest.mark.parametrize("name", NO_ONSET)
def test_real_trajectories_without_a_blocker(name):
    batch = annotate_paths([REAL / name], card="auto")
    assert [a.row.t_star for a in batch.annotations] == [None]
