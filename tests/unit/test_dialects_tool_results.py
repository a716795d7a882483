"""Claude Code's and Gemini CLI's (and its fork Qwen Code's) tool results as each side reads them:
the runtime (agents/tool_results.py, what the relay hands impasse's model) and the annotator
(analysis/formats/, what a transcript's observations become). Both read the formats from one place
(impasse/dialects/); these pin what each side read before they did, on results in the shapes the
real agents write (Claude Code 2.1, Gemini CLI 0.61.0, Qwen Code 0.24.4; real sessions' shapes,
made-up contents), and the one difference kept on purpose."""

from __future__ import annotations

import pytest

from impasse.agents.tool_results import claude_output, gemini_output
from impasse.analysis.formats.claude_code import result_obs
from impasse.analysis.formats.gemini_cli import shell_result, unwrap
from impasse.analysis.formats.qwen_code import shell_result as qwen_shell_result

REMINDER = "\n\n<system-reminder>\nThe TodoWrite tool hasn't been used recently.\n</system-reminder>"
REJECTED = ("The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file "
            "edit, the new_string was NOT written to the file). STOP what you are doing.")

# Claude Code: (text, is_error) → the runtime's (output, code), the annotator's (code, timed_out, executed)
CLAUDE = [
    (("Exit code 127\n/bin/bash: line 1: jq: command not found", True),
     ("/bin/bash: line 1: jq: command not found\n", 127), (127, False, True)),
    (("Exit code 1\nnpm error Missing script: \"lint\"" + REMINDER, True), ("npm error Missing script: \"lint\"\n", 1),
     (1, False, True)),
    (("Exit code -1\n", True), ("", -1), (-1, False, True)),
    (("<tool_use_error>File has not been read yet. Read it first before writing to it.</tool_use_error>", True),
     ("<tool_use_error>File has not been read yet. Read it first before writing to it.</tool_use_error>\n", 1),
     (1, False, True)),
    (("Command timed out after 2m 0.0s", True), ("Command timed out after 2m 0.0s\n", 1), (1, True, True)),
    ((REJECTED, True), (REJECTED + "\n", 1), (1, False, False)),
    (("[Request interrupted by user for tool use]", True), ("[Request interrupted by user for tool use]\n", 1),
     (1, False, False)),
    # the human stopped a running command: its status is the stop's signal, not the command's (the annotator)
    (("Exit code 137\n[Request interrupted by user for tool use]", True),
     ("[Request interrupted by user for tool use]\n", 137), (None, False, True)),
    (("Exit code 137\nKilled", True), ("Killed\n", 137), (137, False, True)),
    (("(Bash completed with no output)", False), ("", 0), (None, False, True)),
    (("Exit code 3\nnot an error", False), ("Exit code 3\nnot an error\n", 0), (None, False, True)),  # not is_error
    (("src/app.ts\nsrc/main.ts\n" + REMINDER, None), ("src/app.ts\nsrc/main.ts\n", 0), (None, False, True)),
]


@pytest.mark.parametrize(("sent", "runtime", "annotator"), CLAUDE)
def test_claude_code_results_read_by_each_side(sent, runtime, annotator):
    text, is_error = sent
    assert claude_output(text, is_error) == runtime
    block = {"type": "tool_result", "content": text} | ({"is_error": is_error} if is_error is not None else {})
    obs = result_obs(block, "command")
    assert (obs.exit_code, obs.timed_out, obs.executed) == annotator and obs.output == text


def wrapped(text: str) -> str:
    return f"<untrusted_context>\n{text}\n</untrusted_context>"


# Gemini CLI's shell tool: its text → the runtime's (output, code), the annotator's (output, code, timed_out)
GEMINI_SHELL = [
    ("Output: (empty)\nProcess Group PGID: 35372", ("", 0), ("", 0, False)),
    ("Output: app/(main)/groups/[id]\nProcess Group PGID: 93417", ("app/(main)/groups/[id]\n", 0),
     ("app/(main)/groups/[id]", 0, False)),
    ("Output: npm error code ENOENT\nnpm error A complete log of this run can be found in: C:\\x.log\nExit Code: 1\n"
     "Process Group PGID: 15496", ("npm error code ENOENT\nnpm error A complete log of this run can be found in: "
                                  "C:\\x.log\n", 1),
     ("npm error code ENOENT\nnpm error A complete log of this run can be found in: C:\\x.log", 1, False)),
    ("Output: d-----  26.06.2026  08:04  data\r\nd-----  26.06.2026  08:04  types\r\nProcess Group PGID: 10136",
     ("d-----  26.06.2026  08:04  data\r\nd-----  26.06.2026  08:04  types\r\n", 0),
     ("d-----  26.06.2026  08:04  data\r\nd-----  26.06.2026  08:04  types\r", 0, False)),
    ("Output: started\nBackground PIDs: 4242, 4243\nProcess Group PGID: 4240", ("started\n", 0), ("started", 0, False)),
    ("Output: \nSignal: 15\nProcess Group PGID: 3", ("", 1), ("", 1, False)),
    ("Output: Error: no input files", ("Error: no input files\n", 0), ("Error: no input files", 0, False)),
    ("Output: Exit Code: 3", ("Exit Code: 3\n", 0), ("Exit Code: 3", 0, False)),
]


@pytest.mark.parametrize(("text", "runtime", "annotator"), GEMINI_SHELL)
def test_gemini_cli_shell_results_read_by_each_side(text, runtime, annotator):
    assert gemini_output(wrapped(text), None) == runtime
    assert shell_result(unwrap(wrapped(text))) == annotator
    assert unwrap(wrapped(text)) == text and unwrap(text) == text


def test_a_process_error_without_a_status_is_no_status_on_either_side():
    """A spawn that failed ran no command: neither side reads a status (the runtime once read 0, a
    success, for an `Output:` without `Exit Code`). The runtime puts the error after the output; the
    annotator keeps Gemini's line as it is."""
    text = "Output: (empty)\nError: spawn bash ENOENT"
    assert gemini_output(wrapped(text), None) == ("spawn bash ENOENT\n", None)
    assert shell_result(unwrap(wrapped(text))) == ("Error: spawn bash ENOENT", None, False)


@pytest.mark.parametrize("text", [
    "Command was automatically cancelled because it exceeded the timeout of 5.0 minutes without output.",
    "Command was cancelled by user before it could complete.",
    "Command moved to background (PID: 7). Output hidden. Press Ctrl+B to view."])
def test_gemini_cli_commands_without_a_status(text):
    assert gemini_output(text, True) == (text, 1) and gemini_output(text, None) == (text, None)
    assert shell_result(text) == (text, None, text.startswith("Command was automatically cancelled"))


@pytest.mark.parametrize(("text", "is_error", "runtime"), [
    ("Successfully created and wrote to new file: /w/src/lib/types.ts.", None, 0),
    ("Successfully overwrote file: /w/README.md.", None, 0),
    ("[Operation Cancelled] Reason: User denied execution.", True, 1),
    ('Tool "run_shell_command" not found. Did you mean one of: "update_topic", "grep_search"?', True, 1),
    ("Directory listing for /w:\n[DIR] src\npackage.json", None, None),
])
def test_gemini_cli_other_tools_read_by_the_runtime(text, is_error, runtime):
    assert gemini_output(wrapped(text), is_error) == (text, runtime)


# Qwen Code's shell tool: every line always; the runtime's reader is Gemini's
QWEN = [
    ("Command: ls\nDirectory: (root)\nOutput: a.py\nb.py\nError: (none)\nExit Code: 0\nSignal: (none)\n"
     "Process Group PGID: 41", ("a.py\nb.py\n", 0), ("a.py\nb.py", 0, False)),
    ("Command: jq . x\nDirectory: (root)\nOutput: bash: line 1: jq: command not found\nError: (none)\n"
     "Exit Code: 127\nSignal: (none)\nProcess Group PGID: 41",
     ("bash: line 1: jq: command not found\n", 127), ("bash: line 1: jq: command not found", 127, False)),
    ("Command: sleep 9\nDirectory: (root)\nOutput: (empty)\nError: (none)\nExit Code: (none)\nSignal: 9\n"
     "Process Group PGID: (none)", ("", 1), ("", 1, False)),
    ("Command: x\nDirectory: (root)\nOutput: (empty)\nError: spawn EACCES\nExit Code: (none)\nSignal: (none)\n"
     "Process Group PGID: (none)", ("spawn EACCES\n", None), ("Error: spawn EACCES", None, False)),
]


@pytest.mark.parametrize(("text", "runtime", "annotator"), QWEN)
def test_qwen_code_shell_results_read_by_each_side(text, runtime, annotator):
    assert gemini_output(text, None) == runtime
    assert qwen_shell_result(text, None) == annotator


def test_both_sides_unwrap_gemini_alike():
    """One wrapper for both since they share it: the runtime gives back the end tag Gemini escaped
    (it gave the escaped form before), the annotator takes a wrapper trimmed of its newlines (it took
    only the exact one before); on what Gemini writes, each reads what it did."""
    escaped = "Output: <untrusted_context>x&lt;/untrusted_context&gt;\nProcess Group PGID: 5"
    assert gemini_output(wrapped(escaped), None) == ("<untrusted_context>x</untrusted_context>\n", 0)
    assert shell_result(unwrap(wrapped(escaped)))[:2] == ("<untrusted_context>x</untrusted_context>", 0)
    assert unwrap("  <untrusted_context>Output: a</untrusted_context>\n") == "Output: a"


@pytest.mark.parametrize("text", [
    "`/bin/bash -lc \"rm -rf /tmp/upstream\"` rejected: blocked by policy",
    'exec_command failed: CreateProcess { message: "Rejected(\\"`/bin/bash -lc \\\\\\"rm -rf /tmp/up\\\\\\"` rejected: '
    'blocked by policy\\")" }',
])
def test_a_command_codexs_policy_rejected_failed_without_a_status_and_is_a_permission_wall(text):
    from impasse.analysis.compiled_card import compile_card
    from impasse.analysis.formats.codex import observation_of
    from impasse.analysis.normal_form import NStep, NTrajectory
    from impasse.analysis.onsets import signature_match
    from impasse.catalog.cards import get_card
    from impasse.dialects.claude_code import FAILED_STATUS_UNKNOWN
    obs = observation_of(text)
    assert (obs.exit_code, obs.executed) == (FAILED_STATUS_UNKNOWN, True)
    step = NStep(1, "", observations=[obs])
    trajectory = NTrajectory("r", "codex", "-", "m", None, "t", [step], "unknown")
    assert signature_match(compile_card(get_card("chown_root"), None), obs, step, trajectory, set()) is not None
    assert observation_of("exec command rejected by user").executed is False  # a human's no: the call never ran
