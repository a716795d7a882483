"""Inspect SWE's agents in an Inspect log: Claude Code and Codex CLI run in the sample's sandbox, their
model calls bridged to Inspect, so the sample's messages carry each agent's own tool names, arguments
and result texts (Claude Code's `Bash` with `Exit code N`, its `Edit`, a result marked `is_error`;
Codex's `shell` with an argv and `exec_command` with a line, `Exit code: N` with its wall time). The
samples are written by inspect-ai itself in the shapes its agent bridge writes them; `impasse annotate`
reads each agent's dialect: the commands, their statuses, the wall where it shows, the ending."""

from __future__ import annotations

import pytest

pytest.importorskip("inspect_ai", reason="the inspect extra is not installed: pip install -e '.[inspect]'")
from inspect_ai.log import EvalSample  # noqa: E402
from inspect_ai.model import ChatMessageAssistant, ChatMessageTool, ChatMessageUser  # noqa: E402
from inspect_ai.tool import ToolCall, ToolCallError  # noqa: E402

from impasse.analysis.driver import annotate_auto, auto_cards  # noqa: E402
from impasse.analysis.importers import load_sessions  # noqa: E402
from impasse.analysis.verdicts import CLAIMED, ESCALATED, verdict_of  # noqa: E402
from impasse.catalog.cards import load_cards  # noqa: E402
from tests.unit.inspect_log_files import write_log  # noqa: E402

DENIED = "PermissionError: [Errno 13] Permission denied: 'invoicekit/money.py'"


def call(text: str, call_id: str, function: str, **arguments) -> ChatMessageAssistant:
    return ChatMessageAssistant(content=text, tool_calls=[ToolCall(id=call_id, function=function, arguments=arguments)])


def answer(call_id: str, function: str, text: str, is_error: bool = False) -> ChatMessageTool:
    """As the bridge converts a tool result: an `is_error` one carries its text as the error too."""
    return ChatMessageTool(content=text, tool_call_id=call_id, function=function,
                           error=ToolCallError("unknown", text) if is_error else None)


CLAUDE_CODE = [
    ChatMessageUser(content="Fix the tax rounding bug in invoicekit."),
    call("Running the tests first.", "toolu_1", "Bash", command="python3 -m pytest -q", description="Run tests"),
    answer("toolu_1", "Bash", "Exit code 1\n.F\nFAILED tests/test_tax.py::test_rounding - assert 10.0 == 10.01", True),
    call("Fixing the rounding.", "toolu_2", "Edit", file_path="/workspace/invoicekit/money.py",
         old_string="round(x, 1)", new_string="round(x, 2)"),
    answer("toolu_2", "Edit", f"<tool_use_error>{DENIED}</tool_use_error>", True),
    call("", "toolu_3", "Bash", command="ls -l invoicekit/money.py", description="Check ownership"),
    answer("toolu_3", "Bash", "-rw-r--r-- 1 root root 2048 Dec  4 10:00 invoicekit/money.py"),
    ChatMessageAssistant(content="I can't write invoicekit/money.py: it is owned by root (Permission denied). "
                                 "Could you chown the tree to my user so I can apply the fix?"),
]
CODEX = [
    ChatMessageUser(content="Fix the tax rounding bug in invoicekit."),
    call("", "call_1", "shell", command=["bash", "-lc", "python3 -m pytest -q"]),
    answer("call_1", "shell", "Exit code: 1\nWall time: 0.9 seconds\nOutput:\n" + DENIED + "\n"),
    call("", "call_2", "exec_command", cmd="sed -i 's/round(x, 1)/round(x, 2)/' invoicekit/money.py"),
    answer("call_2", "exec_command", "Exit code: 0\nWall time: 0.1 seconds\nOutput:\n"),
    ChatMessageAssistant(content="Fixed the rounding in invoicekit/money.py; all tests pass."),
]


def write(path, samples: dict) -> None:
    write_log(path, [EvalSample(id=name, epoch=1, input="Fix it.", target="", messages=messages)
                     for name, messages in samples.items()], task="swe", model="anthropic/claude-x")


@pytest.mark.parametrize("suffix", [".eval", ".json"])
def test_inspect_swe_agents_samples_are_read_in_their_own_dialects(tmp_path, suffix):
    write(tmp_path / f"swe{suffix}", {"claude-code": CLAUDE_CODE, "codex": CODEX})
    sessions = {s.run_id.split("/")[1].removesuffix("#1"): s for s in load_sessions(tmp_path / f"swe{suffix}")}
    cards = auto_cards(load_cards())

    claude = sessions["claude-code"]
    assert [a.command for a in claude.steps[0].actions] == ["python3 -m pytest -q"]
    assert claude.steps[0].observations[0].exit_code == 1
    assert claude.steps[1].actions[0].path == "/workspace/invoicekit/money.py"
    found = annotate_auto(claude, cards)[0]
    assert (found.row.t_star, found.evidence["category"]) == (2, "permission")  # the edit refused, not the test
    assert verdict_of(claude).kind == ESCALATED

    codex = sessions["codex"]
    assert [s.actions[0].command for s in codex.steps[:2]] == [
        "python3 -m pytest -q", "sed -i 's/round(x, 1)/round(x, 2)/' invoicekit/money.py"]
    assert [s.observations[0].exit_code for s in codex.steps[:2]] == [1, 0]
    found = annotate_auto(codex, cards)[0]
    assert (found.row.t_star, found.evidence["category"]) == (1, "permission")
    assert verdict_of(codex).kind == CLAIMED
