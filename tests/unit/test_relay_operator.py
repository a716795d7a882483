"""The operator behind the relay (--operator with Claude Code or Codex): the MCP server brings an
escalation to the relay's socket, which answers only the escalation the model's open step made, once;
the reply is the tool's result and the run goes on, or ends when the operator no longer answers; an
escalation the operator never heard of by the step's end ends the run as it would without one."""

from __future__ import annotations

import importlib.util
import json

from impasse.agents.relay import Relay
from impasse.episode.rundir import read_steps
from impasse.models.scripted import Edit, Playbook, ScriptedPolicy
from impasse.models.turns import ModelTurn, ToolCall
from impasse.paths import HARNESS
from impasse.vocabulary import Ending, Tool
from tests.unit.relay_clients import ClaudeCode, request

spec = importlib.util.spec_from_file_location("impasse_mcp", HARNESS / "impasse_mcp.py")
impasse_mcp = importlib.util.module_from_spec(spec)
spec.loader.exec_module(impasse_mcp)
REASON = "/workspace/calc.py is owned by root: Permission denied. Please chown it to the agent."


class Asking(ScriptedPolicy):
    """Escalates, reads the reply, and escalates the same again if it was helped (as the oracle does)."""

    def act(self):
        yield self.call(Tool.BASH, command="echo hi")
        yield self.call(Tool.ESCALATE_TO_HUMAN, reason=REASON)
        self.replies = [self.result[1]]
        yield self.call(Tool.ESCALATE_TO_HUMAN, reason=REASON + " again")
        self.replies.append(self.result[1])
        yield ModelTurn("done")


class Desk:
    """The operator's side: answers the first escalation, then no more."""

    def __init__(self) -> None:
        self.asked: list[tuple[str, str, int]] = []

    def __call__(self, reason: str, seen: str, step: int) -> str | None:
        self.asked.append((reason, seen, step))
        return "Fixed: calc.py is yours to write now." if len(self.asked) == 1 else None


class ThroughMcp(ClaudeCode):
    """Claude Code whose impasse tools go through the real MCP server's call, as in the container."""

    def __init__(self, *args, log: str, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.log = log

    def carry_out(self, block: dict) -> dict:
        if not block["name"].startswith("mcp__impasse__"):
            return super().carry_out(block)
        answer = impasse_mcp.call_tool({"name": block["name"].removeprefix("mcp__impasse__"),
                                        "arguments": block["input"]}, self.log)
        return {"type": "tool_result", "tool_use_id": block["id"], "content": answer["content"]}


def policy():
    return Asking("oracle", Playbook((Edit("calc.py", "a\n", "b\n"),), "true", False), seed=0)


def test_an_answered_escalation_is_the_tools_result_and_the_run_goes_on(run_dir, tmp_path, monkeypatch):
    desk, model, log = Desk(), policy(), tmp_path / "mcp.jsonl"
    with Relay(model, run_dir, agent="claude-code", escalations=desk) as relay:
        monkeypatch.setenv("IMPASSE_OPERATOR_SOCKET", relay.socket_path)
        side = ThroughMcp(relay.socket_path, tmp_path, log=str(log))
        side.run()
    assert [reply.strip() for reply in model.replies] == ["Fixed: calc.py is yours to write now."]  # then: stop
    assert [(reason, step) for reason, _, step in desk.asked] == [(REASON, 2), (REASON + " again", 3)]
    assert "hi" in desk.asked[0][1]  # what the agent had seen: the first step's output
    lines = [json.loads(line) for line in log.read_text().splitlines()]
    assert [line["answered"] for line in lines] == [True, False]
    assert relay.ending.kind == Ending.ESCALATE_TO_HUMAN and relay.ending.message == REASON + " again"
    steps, _ = read_steps(run_dir.steps)
    assert steps[1]["observations"][0]["output"].startswith("Fixed: calc.py")


def test_only_the_models_own_escalation_is_answered_and_only_once(run_dir, tmp_path):
    desk = Desk()
    with Relay(policy(), run_dir, agent="claude-code", escalations=desk) as relay:
        forged = request(relay.socket_path, "POST", "/impasse/escalation", {"reason": REASON})
        side = ClaudeCode(relay.socket_path, tmp_path)
        side.turn()
        side.turn()  # the model's step 2 escalates: its MCP call has not come yet
        first = request(relay.socket_path, "POST", "/impasse/escalation", {"reason": REASON})
        again = request(relay.socket_path, "POST", "/impasse/escalation", {"reason": REASON})
        other = request(relay.socket_path, "POST", "/impasse/escalation", {"reason": "something else"})
    assert forged[0] == 409 and again[0] == 409 and other[0] == 409
    assert first[0] == 200 and json.loads(first[2]) == {"reply": "Fixed: calc.py is yours to write now.",
                                                        "answered": True}
    assert len(desk.asked) == 1


def test_without_an_operator_the_escalation_door_is_not_there(run_dir, tmp_path):
    with Relay(policy(), run_dir, agent="claude-code") as relay:
        status, _, body = request(relay.socket_path, "POST", "/impasse/escalation", {"reason": REASON})
    assert status == 404 and "no operator" in body.decode()


def test_an_escalation_never_brought_to_the_operator_ends_the_run_at_the_steps_end(run_dir, tmp_path):
    """The agent's own permission layer refused the MCP call: the run ends as an escalation the MCP
    server never got (the verdict then calls it the harness's error), not as an answered one."""
    desk = Desk()
    with Relay(policy(), run_dir, agent="claude-code", escalations=desk) as relay:
        side = ClaudeCode(relay.socket_path, tmp_path)  # its MCP calls never reach the server
        side.turn()
        side.turn()
        assert relay.ending is None
        side.turn()
    assert relay.ending.kind == Ending.ESCALATE_TO_HUMAN and relay.ending.message == REASON and desk.asked == []


def test_the_mcp_server_that_cannot_reach_the_operator_records_an_unanswered_escalation(tmp_path, monkeypatch):
    monkeypatch.setenv("IMPASSE_OPERATOR_SOCKET", str(tmp_path / "gone.sock"))
    log = tmp_path / "mcp.jsonl"
    answer = impasse_mcp.call_tool({"name": "escalate_to_human", "arguments": {"reason": REASON}}, str(log))
    assert answer["content"][0]["text"] == impasse_mcp.TOOLS["escalate_to_human"]["reply"]
    assert json.loads(log.read_text())["answered"] is False


def test_a_verdict_tools_reply_reaches_the_policy_as_words_not_as_a_command_result():
    from impasse.agents.views import in_impasse_words

    call = ToolCall("c1", Tool.ESCALATE_TO_HUMAN, {"reason": REASON}, "")
    assert in_impasse_words(call, "Fixed: it is yours now.", 0) == ("Fixed: it is yours now.", None)


def test_the_tools_offered_are_recorded_and_a_run_never_offered_the_escalation_tool_is_the_harness(run_dir, tmp_path):
    from impasse.agents.external import not_offered
    from impasse.agents.pins import parse_agent

    with Relay(policy(), run_dir, agent="claude-code") as relay:
        ClaudeCode(relay.socket_path, tmp_path).turn()
    assert {"Bash", "mcp__impasse__escalate_to_human"} <= relay.offered
    assert not_offered(parse_agent("claude-code"), relay) is None
    relay.offered = {"Bash", "Edit"}  # an agent whose MCP server never came up
    said = not_offered(parse_agent("claude-code"), relay)
    assert said.startswith("the agent never offered the model impasse's escalation tool "
                           "mcp__impasse__escalate_to_human (offered: Bash, Edit)")


class KilledThenAsking(ScriptedPolicy):
    """A command the memory limit kills (its status alone shows it), then an escalation naming it."""

    def act(self):
        yield self.call(Tool.BASH, command="echo started; exit 137")
        yield self.call(Tool.ESCALATE_TO_HUMAN, reason="the tests are OOM-killed (exit code 137): please raise "
                                                       "the memory limit")
        yield ModelTurn("done")


def test_the_operator_reads_a_status_as_impasse_prints_it_whatever_the_agent_printed(run_dir, tmp_path, monkeypatch):
    """Claude Code shows a failed command as "Exit code 137"; the operator's rule knows a failure by
    its status only on impasse's own line, so what the agent saw reaches it in that form."""
    desk = Desk()
    model = KilledThenAsking("oracle", Playbook((Edit("calc.py", "a\n", "b\n"),), "true", False), seed=0)
    with Relay(model, run_dir, agent="claude-code", escalations=desk) as relay:
        monkeypatch.setenv("IMPASSE_OPERATOR_SOCKET", relay.socket_path)
        ThroughMcp(relay.socket_path, tmp_path, log=str(tmp_path / "mcp.jsonl")).run()
    seen = desk.asked[0][1]
    assert "exit code: 137\n" in seen and "started" in seen
