"""Session exports that carry a `messages` list (LABELING.md convention 7), written as the exporters of
Claude Code, Codex and opencode sessions write them: recognised before mini-swe-agent's trajectories,
one step per run of assistant messages, observations up to the next assistant message, a user
message ending the run, system, developer and sub-agent messages skipped, exit codes where printed."""

from __future__ import annotations

import json

from impasse.analysis.formats.chat_export import from_chat_export, is_chat_export
from impasse.analysis.importers import detect, load_foreign
from impasse.analysis.normal_form import COMMAND
from impasse.analysis.verdicts import verdict_of as ending_of
from impasse.vocabulary import Tool


def call(id_: str, name: str, arguments: dict) -> dict:
    return {"id": id_, "type": "function", "function": {"name": name, "arguments": json.dumps(arguments)}}


EXPORT = {
    "meta": {"agent": "claude-code", "model": "claude-sonnet-4-5", "platform": "win32"},
    "messages": [
        {"role": "system", "content": "You are a coding agent."},
        {"role": "user", "content": "Run the tests and fix the failure."},
        # one model turn written as three messages: its text, then each tool call
        {"role": "assistant", "content": "Let me run the tests."},
        {"role": "assistant", "content": None, "tool_calls": [call("c1", "Bash", {"command": "pytest -q"})]},
        {"role": "assistant", "content": None, "tool_calls": [call("c2", "Read", {"file_path": "src/app.py"})]},
        {"role": "tool", "tool_call_id": "c1", "content": "Exit code 127\nbash: pytest: command not found"},
        {"role": "tool", "tool_call_id": "c2", "content": [{"type": "text", "text": "import os\n"}]},
        {"role": "subagent", "content": "Explored 3 files."},
        {"role": "assistant", "content": "Trying the module form.",
         "tool_calls": [call("c3", "shell", {"command": ["bash", "-lc", "python3 -m pytest -q"]})]},
        {"role": "tool", "tool_call_id": "c3", "content": '{"output": "No module named pytest", "exit_code": 1}'},
        {"role": "user", "content": "Any luck?"},
        {"role": "tool", "tool_call_id": "c9", "content": "a late result after the human spoke"},
        {"role": "assistant", "content": "pytest is not installed here. Could you install it?"},
    ],
}


def test_an_export_is_recognised_and_a_mini_swe_agent_trajectory_is_not_taken_for_one():
    assert is_chat_export(EXPORT) and detect(EXPORT) == "chat-export"
    mini = {"info": {"exit_status": "Submitted"}, "messages": [{"role": "assistant", "content": "```bash\nls\n```"},
                                                               {"role": "user", "content": "<output>a</output>"}]}
    assert not is_chat_export(mini) and detect(mini) == "mini-swe-agent"


def test_steps_observations_and_exit_codes_follow_the_convention(tmp_path):
    trajectory = from_chat_export(EXPORT, tmp_path / "session.json")
    assert trajectory.model == "claude-sonnet-4-5" and trajectory.source == "chat-export"
    first, second, third = trajectory.steps
    assert first.text == "Let me run the tests." and [a.tool for a in first.actions] == [Tool.BASH, "other"]
    assert first.actions[0].command == "pytest -q"
    assert [(o.exit_code, o.kind) for o in first.observations] == [(127, COMMAND), (None, "read")]
    assert second.actions[0].command == "python3 -m pytest -q" and second.observations[0].exit_code == 1
    assert second.observations[0].output == "No module named pytest"  # the JSON result's own text
    assert third.observations == [] and "Could you install it?" in third.text  # after the human: none
    assert [s.index for s in trajectory.steps] == [1, 2, 3]


def result_first_export(last: list[dict]) -> list[dict]:
    """An export that files each tool result before the call it answers (as some opencode exporters do)."""
    return [
        {"role": "user", "content": "Fix the test runner."},
        {"role": "assistant", "content": None, "tool_calls": [call("c1", "bash", {"command": "sh run_tests.sh"})]},
        {"role": "tool", "tool_call_id": "c2", "content": "diff --git a/run_tests.sh b/run_tests.sh"},
        {"role": "assistant", "content": None, "tool_calls": [call("c2", "bash", {"command": "git diff"})]},
        *last,
    ]


def test_words_after_the_last_call_are_the_sessions_last_word_not_a_cut_off_log(tmp_path):
    """A model writes after a call only once it has the answer: text after the calls of the last run
    is what the agent said last; a run that ends on a call is a log cut off mid-work."""
    spoke = tmp_path / "spoke.json"
    spoke.write_text(json.dumps({"messages": result_first_export(
        [{"role": "assistant", "content": "I fixed the runner; all 29 tests pass."}])}), encoding="utf-8")
    cut = tmp_path / "cut.json"
    cut.write_text(json.dumps({"messages": result_first_export(
        [{"role": "assistant", "content": "Now checking the diff.",
          "tool_calls": [call("c3", "bash", {"command": "git status"})]}])}), encoding="utf-8")
    assert ending_of(load_foreign(spoke)).kind == "claimed done"
    assert ending_of(load_foreign(cut)).kind == "aborted"


def test_a_check_handed_over_for_later_in_a_report_that_claims_the_work_is_no_escalation(tmp_path):
    """What could not run here, handed to the human to run once its tool is there, asks nothing the
    agent needs to go on: the report claims the work done."""
    text = ("Implemented the wrappers and wired `make aider`.\n\n**Testing**\n- Not run: `aider` is not installed "
            "here. Once aider is available, please run:\n  - `make aider MSG=check`\n\nCommit: `feat: wrappers`.")
    path = tmp_path / "s.json"
    path.write_text(json.dumps({"messages": [{"role": "user", "content": "wire aider"},
                                             {"role": "assistant", "content": text}]}))
    assert ending_of(load_foreign(path)).kind == "claimed done"


def test_copilot_clis_older_session_file_keeps_its_messages_as_chat_messages(tmp_path):
    """GitHub Copilot CLI's older session files: `chatMessages` (the chat API's messages) beside a
    `timeline` for its own screen; read as an export of those messages, the timeline left alone."""
    session = {"sessionId": "s1", "startTime": "2025-10-23T14:23:36.342Z", "timeline": [{"type": "info"}],
               "chatMessages": [
                   {"role": "user", "content": "List the branches."},
                   {"role": "assistant", "content": "", "tool_calls": [call("c1", "bash", {"command": "git branch"})]},
                   {"role": "tool", "tool_call_id": "c1", "content": "fatal: not a git repository"},
                   {"role": "assistant", "content": "This folder is not a git repository, so there are no branches."}]}
    path = tmp_path / "session.json"
    path.write_text(json.dumps(session))
    trajectory = load_foreign(path)
    assert trajectory.source == "chat-export" and trajectory.length == 2
    assert trajectory.steps[0].actions[0].command == "git branch"
    assert trajectory.steps[0].observations[0].output == "fatal: not a git repository"
    assert not is_chat_export({"sessionId": "s1", "timeline": []})


def test_a_command_result_written_as_json_is_read_as_the_lines_it_printed(tmp_path):
    """Hermes Agent's terminal tool returns `{"output": …, "exit_code": …, "error": …}`: the lines a
    signature anchors on (`^remote: error: GH013`) are the output's own, not one escaped string."""
    printed = "To github.com:o/r.git\nremote: error: GH013: Repository rule violations found for refs/heads/main."
    export = {"messages": [
        {"role": "user", "content": "Push it."},
        {"role": "assistant", "content": None, "tool_calls": [call("c1", "terminal", {"command": "git push"})]},
        {"role": "tool", "tool_call_id": "c1",
         "content": json.dumps({"output": printed, "exit_code": 1, "error": "push rejected"})},
        {"role": "assistant", "content": None, "tool_calls": [call("c2", "terminal", {"command": "cat x.json"})]},
        {"role": "tool", "tool_call_id": "c2", "content": '{"output": 3, "exit_code": 0}'},  # not a result's shape
    ]}
    first, second = from_chat_export(export, tmp_path / "session.json").steps
    obs = first.observations[0]
    assert obs.output.splitlines() == [*printed.splitlines(), "push rejected"] and obs.exit_code == 1
    assert second.observations[0].output == '{"output": 3, "exit_code": 0}' and second.observations[0].exit_code == 0
