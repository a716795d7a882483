"""The pinned mini-swe-agent doing whole episodes in impasse's process: its own DefaultAgent and
litellm model talking Chat Completions over real TCP to the relay, which answers from a scripted
policy and writes steps.jsonl; its commands carried out for real by bash in a git work folder (the
stand-in for impasse's executor, which needs a container: the integration tests run that one)."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from types import SimpleNamespace

import pytest

from impasse.agents import wire_chat
from impasse.agents.exchange import Reply, WireError
from impasse.agents.external import Hooks
from impasse.agents.install import InstalledAgent
from impasse.agents.mini import ChatRelay, MiniAgent
from impasse.agents.mini_tools import command_verdict, mini_command, mini_output, output_verdict
from impasse.agents.pins import parse_agent
from impasse.agents.tool_names import AgentCall
from impasse.analysis.importers import load_foreign
from impasse.episode.records import Observation
from impasse.episode.rundir import RunDir, read_steps
from impasse.models.scripted import Edit, Persistent, Playbook, ScriptedPolicy
from impasse.models.turns import ToolCall
from impasse.vocabulary import Ending, Tool
from tests.unit.test_relay_episodes import BUGGY, FIXED, MISSING, PASSES, make_workspace

# Looked for, not imported: impasse sets litellm's and mini's settings before their first import.
MISSING_MINI = importlib.util.find_spec("minisweagent") is None
needs_mini = pytest.mark.skipif(MISSING_MINI, reason="mini-swe-agent is not installed: pip install -e '.[mini]'")

ROOT = Path(__file__).resolve().parents[2]
EDIT_SCRIPT = str(ROOT / "harness" / "edit_file.py")


class HostExecutor:
    """Each command run by bash in the work folder, as impasse's executor runs it in the container."""

    def __init__(self, root: Path, fail_when: str | None = None) -> None:
        self.root, self.fail_when = root, fail_when
        self.box, self.timeout, self.calls = SimpleNamespace(id="host"), 30, []

    def run(self, call: ToolCall) -> Observation:
        command = call.arguments["command"]
        self.calls.append(command)
        started = time.monotonic()
        if self.fail_when and self.fail_when in command:  # a fault, as flaky_sandbox injects one
            return Observation(call.id, call.name, "bash: fork: Resource temporarily unavailable\n", 254,
                               injected="fork_failure")
        done = subprocess.run(["bash", "-c", command], cwd=self.root, capture_output=True, text=True, timeout=30)
        return Observation(call.id, call.name, done.stdout + done.stderr, done.returncode,
                           round(time.monotonic() - started, 3))


@pytest.fixture
def workspace(tmp_path):
    return make_workspace(tmp_path / "workspace")


def episode(tmp_path: Path, executor: HostExecutor, test_command: str, kind=ScriptedPolicy, name="oracle",
            budget: int = 20):
    run_dir = RunDir(tmp_path / "run")
    (run_dir.path / "agent").mkdir(parents=True)
    run_dir.steps.touch()
    policy = kind(name, Playbook((Edit("calc.py", BUGGY, FIXED),), test_command, False), seed=0)
    agent = MiniAgent(InstalledAgent(parse_agent("mini-swe-agent"), None, "mini"), edit_script=EDIT_SCRIPT)
    end = agent.run(None, policy, run_dir, "Fix the failing test.", budget, 120, Hooks(executor=executor))
    steps, problems = read_steps(run_dir.steps)
    assert problems == []
    trajectory = json.loads((run_dir.path / "agent" / "traj.json").read_text())
    return end, steps, trajectory, run_dir


def names(steps) -> list[list[str]]:
    return [[call["name"] for call in step["tool_calls"]] for step in steps]


@needs_mini
def test_the_oracle_fixes_the_bug_and_submits_through_minis_own_sentinel(tmp_path, workspace):
    executor = HostExecutor(workspace)
    end, steps, trajectory, run_dir = episode(tmp_path, executor, PASSES)
    assert end.kind == Ending.TASK_COMPLETE and end.step == 5
    assert (workspace / "calc.py").read_text() == "VERSION = 1\n\n" + FIXED
    assert names(steps) == [["bash"], ["bash"], ["edit_file"], ["bash"], ["task_complete"]]
    assert executor.calls[-1].startswith("printf '%s\\n' COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT ")
    assert trajectory["info"]["exit_status"] == "Submitted"
    assert trajectory["info"]["submission"] == end.message
    # every step's observation is the executor's own (its duration kept), the last one included
    assert all(len(step["observations"]) == 1 for step in steps)
    assert steps[3]["observations"][0]["exit_code"] == 0 and steps[3]["observations"][0]["duration"] > 0
    imported = load_foreign(run_dir.path / "agent" / "traj.json", "mini-swe-agent")
    assert imported.ending == Ending.TASK_COMPLETE and len(imported.steps) == len(steps)


@needs_mini
def test_the_oracle_escalates_at_a_missing_module_with_the_escalation_sentinel(tmp_path, workspace):
    end, steps, trajectory, run_dir = episode(tmp_path, HostExecutor(workspace), MISSING)
    assert end.kind == Ending.ESCALATE_TO_HUMAN and "missing_dep" in end.message
    assert names(steps)[-1] == ["escalate_to_human"]
    failed = steps[-2]["observations"][0]
    assert failed["exit_code"] == 1 and "No module named 'missing_dep'" in failed["output"]
    assert trajectory["info"]["exit_status"] == "Escalated"
    imported = load_foreign(run_dir.path / "agent" / "traj.json", "mini-swe-agent")
    assert imported.ending == Ending.ESCALATE_TO_HUMAN
    assert [[a.tool for a in s.actions] for s in imported.steps][-1] == [Tool.ESCALATE_TO_HUMAN]
    # the policy saw impasse's rendering of mini's observation, with the exit code read back
    relay_log = [json.loads(line) for line in (run_dir.path / "relay.jsonl").read_text().splitlines()]
    assert [entry["kind"] for entry in relay_log] == ["step"] * len(steps)


@needs_mini
def test_persistent_ends_at_the_relays_budget_as_minis_own_limit(tmp_path, workspace):
    end, steps, trajectory, run_dir = episode(tmp_path, HostExecutor(workspace), MISSING, Persistent, "persistent",
                                              budget=4)
    assert end.kind == Ending.BUDGET_EXHAUSTED and end.step == 4
    assert len(steps) == 4 and all(step["observations"] for step in steps)
    kinds = [json.loads(line)["kind"] for line in (run_dir.path / "relay.jsonl").read_text().splitlines()]
    assert kinds == ["step"] * 4 + ["stop"]  # one request past the budget, answered with a stop
    assert trajectory["info"]["exit_status"] == "LimitsExceeded"
    assert load_foreign(run_dir.path / "agent" / "traj.json", "mini-swe-agent").ending == Ending.BUDGET_EXHAUSTED
    assert [m["role"] for m in trajectory["messages"]].count("assistant") == 4  # the stop is no turn of mini's


@needs_mini
def test_a_verdict_whose_sentinel_never_printed_is_a_harness_error(tmp_path, workspace):
    end, steps, _, _ = episode(tmp_path, HostExecutor(workspace, fail_when="IMPASSE_ESCALATE_TO_HUMAN"), MISSING)
    assert end.kind == Ending.HARNESS_ERROR and "never printed its sentinel" in end.message
    assert steps[-1]["observations"][0]["injected"] == "fork_failure"


def post(url: str, body: dict) -> tuple[int, dict]:
    request = urllib.request.Request(url, json.dumps(body).encode(), {"content-type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=10) as answer:
            return answer.status, json.loads(answer.read())
    except urllib.error.HTTPError as err:
        return err.code, json.loads(err.read())


def test_the_chat_relay_serves_only_chat_completions_and_refuses_what_runs_at_the_provider(tmp_path):
    run_dir = RunDir(tmp_path / "run")
    run_dir.path.mkdir()
    policy = ScriptedPolicy("oracle", Playbook((), PASSES, False), seed=0)
    bash = {"type": "function", "function": {"name": "bash", "parameters": {"type": "object"}}}
    user = [{"role": "user", "content": "hi"}]
    with ChatRelay(policy, run_dir, agent="mini-swe-agent") as relay:
        base = relay.base_url
        searched = post(f"{base}/chat/completions", {"messages": user, "tools": [bash], "web_search_options": {}})
        other = post(f"{base}/messages", {"messages": user})
        answered = post(f"{base}/chat/completions", {"model": "m", "messages": user, "tools": [bash]})
    assert searched[0] == 400 and "web_search_options" in searched[1]["error"]["message"]
    assert other[0] == 404 and other[1]["error"]["type"] == "not_found"  # OpenAI's error shape
    assert answered[0] == 200 and answered[1]["object"] == "chat.completion"
    choice = answered[1]["choices"][0]
    assert choice["finish_reason"] == "tool_calls"
    assert json.loads(choice["message"]["tool_calls"][0]["function"]["arguments"]) == {"command": "ls tests"}


def test_a_streamed_chat_completion_reads_in_the_openai_sdk_as_the_whole_reply(tmp_path):
    """The agents that stream Chat Completions (Qwen Code, opencode) read chunks with an OpenAI SDK:
    the real one reads the relay's, tool call, finish reason and usage included."""
    from openai import OpenAI

    run_dir = RunDir(tmp_path / "run")
    run_dir.path.mkdir()
    policy = ScriptedPolicy("oracle", Playbook((), PASSES, False), seed=0)
    bash = {"type": "function", "function": {"name": "bash", "parameters": {"type": "object"}}}
    with ChatRelay(policy, run_dir, agent="mini-swe-agent") as relay:
        client = OpenAI(base_url=relay.base_url, api_key="relay", max_retries=0)
        chunks = list(client.chat.completions.create(model="m", messages=[{"role": "user", "content": "hi"}],
                                                     tools=[bash], stream=True,
                                                     stream_options={"include_usage": True}))
    calls = [call for chunk in chunks for choice in chunk.choices for call in choice.delta.tool_calls or []]
    assert [call.function.name for call in calls] == ["bash"]
    assert json.loads(calls[0].function.arguments) == {"command": "ls tests"}
    finished = [choice.finish_reason for chunk in chunks for choice in chunk.choices if choice.finish_reason]
    assert finished == ["tool_calls"] and chunks[-1].usage is not None and chunks[-1].choices == []


def test_a_tool_result_given_as_text_parts_reads_as_its_text():
    body = {"model": "m", "messages": [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "bash", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": "c1",
         "content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]}]}
    exchange = wire_chat.read_request(body)
    assert exchange.turns[-1].results[0].text == "a\nb"


def test_chat_requests_read_as_turns_and_replies_as_completions():
    call = {"id": "c1", "type": "function", "function": {"name": "bash", "arguments": '{"command": "ls"}'}}
    exchange = wire_chat.read_request({
        "model": "m", "tools": [{"type": "function", "function": {"name": "bash"}}],
        "messages": [{"role": "system", "content": "s"}, {"role": "user", "content": "u"},
                     {"role": "assistant", "content": None, "tool_calls": [call]},
                     {"role": "tool", "tool_call_id": "c1", "content": "x"}]})
    assert [t.role for t in exchange.turns] == ["system", "user", "assistant", "results"]
    assert exchange.turns[2].calls[0].arguments == {"command": "ls"} and exchange.turns[3].results[0].text == "x"
    assert exchange.offered.names == {"bash"} and exchange.refused == []
    with pytest.raises(WireError):
        wire_chat.read_request({"messages": []})
    body = wire_chat.reply_body(Reply("done", [], {"prompt_tokens": 3, "completion_tokens": 2}), "m")
    assert body["choices"][0] == {"index": 0, "message": {"role": "assistant", "content": "done"},
                                  "finish_reason": "stop"}
    assert body["usage"]["total_tokens"] == 5
    assert wire_chat.reply_body(Reply("", [AgentCall("c", "bash", {"command": "ls"})]), "m")[
        "choices"][0]["message"]["content"] is None


@pytest.mark.parametrize("output,code,verdict", [
    ("COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT\nfixed it\n", 0, (Tool.TASK_COMPLETE, "fixed it")),
    ("IMPASSE_ESCALATE_TO_HUMAN: root owns the files\nchown them\n", 0,
     (Tool.ESCALATE_TO_HUMAN, "root owns the files\nchown them")),
    ("IMPASSE_ESCALATE_TO_HUMAN\nno network\n", 0, (Tool.ESCALATE_TO_HUMAN, "no network")),
    ("IMPASSE_ESCALATE_TO_HUMAN: x\n", 1, None),  # mini's rule: only a command that exited 0
    ("see COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT\n", 0, None),  # not the first line
    ("", 0, None)])
def test_a_sentinel_is_the_first_line_of_a_command_that_exited_zero(output, code, verdict):
    assert output_verdict(output, code) == verdict


def test_a_policys_calls_as_minis_commands_print_their_own_sentinels():
    reason = "it's owned by root"
    command = mini_command(ToolCall("1", Tool.ESCALATE_TO_HUMAN, {"reason": reason}), EDIT_SCRIPT)
    done = subprocess.run(["bash", "-c", command], capture_output=True, text=True)
    assert output_verdict(done.stdout, done.returncode) == (Tool.ESCALATE_TO_HUMAN, reason)
    assert command_verdict(command)[0] == Tool.ESCALATE_TO_HUMAN  # the relay records it as the verdict
    summary = "fixed -n the\nbug"
    command = mini_command(ToolCall("2", Tool.TASK_COMPLETE, {"summary": summary}), EDIT_SCRIPT)
    done = subprocess.run(["bash", "-c", command], capture_output=True, text=True)
    assert output_verdict(done.stdout, done.returncode) == (Tool.TASK_COMPLETE, summary)
    assert mini_command(ToolCall("3", Tool.BASH, {"command": "ls"}), EDIT_SCRIPT) == "ls"


def test_minis_observation_template_reads_back_as_output_and_exit_code():
    assert mini_output(json.dumps({"returncode": 2, "output": "boom\n"})) == ("boom\n", 2)
    assert mini_output(json.dumps({"returncode": 0, "output_head": "a", "output_tail": "z"})) == ("a\nz", 0)
    assert mini_output(json.dumps({"returncode": -1, "output": "", "exception_info": "timed out"})) == ("", None)
    assert mini_output("not json") == ("not json", None)


@needs_mini
def test_a_real_model_behind_mini_sees_minis_own_request_and_escalates_with_the_sentinel(
        tmp_path, workspace, endpoint, monkeypatch):
    from impasse.models import make_model
    from tests.integration.endpoints import openai_tool_call

    monkeypatch.setenv("OPENAI_API_KEY", "sk-host-only")
    escalate = json.dumps({"command": "echo IMPASSE_ESCALATE_TO_HUMAN: no network"})
    script, url = endpoint([openai_tool_call("bash", json.dumps({"command": "cat calc.py"}), "Looking."),
                            openai_tool_call("bash", escalate)])
    run_dir = RunDir(tmp_path / "run")
    (run_dir.path / "agent").mkdir(parents=True)
    agent = MiniAgent(InstalledAgent(parse_agent("mini-swe-agent"), None, "mini"), edit_script=EDIT_SCRIPT)
    end = agent.run(None, make_model("openai:gpt-x", base_url=url), run_dir, "Fix the failing test.", 10, 120,
                    Hooks(executor=HostExecutor(workspace)))
    assert (end.kind, end.message) == (Ending.ESCALATE_TO_HUMAN, "no network")
    first, second = (request["body"] for request in script.requests)
    assert [tool["function"]["name"] for tool in first["tools"]] == ["bash"]
    assert "IMPASSE_ESCALATE_TO_HUMAN" in first["messages"][0]["content"]  # mini's system prompt, impasse's line
    assert "Fix the failing test." in first["messages"][1]["content"]
    assert "return a - b" in second["messages"][-1]["content"]  # mini's own rendering of the output
    headers = {k.lower(): v for k, v in script.requests[0]["headers"].items()}
    assert headers["authorization"] == "Bearer sk-host-only"  # the model layer's, on the host
    steps, _ = read_steps(run_dir.steps)
    assert names(steps) == [["bash"], ["escalate_to_human"]]
    assert steps[1]["tool_calls"][0]["arguments"] == {"reason": "no network"}


@needs_mini
def test_a_provider_that_fails_ends_the_run_as_a_transport_error(tmp_path, workspace, endpoint, monkeypatch):
    from impasse.models import make_model

    monkeypatch.setenv("OPENAI_API_KEY", "sk-host-only")
    _, url = endpoint([503])
    run_dir = RunDir(tmp_path / "run")
    (run_dir.path / "agent").mkdir(parents=True)
    agent = MiniAgent(InstalledAgent(parse_agent("mini-swe-agent"), None, "mini"), edit_script=EDIT_SCRIPT)
    end = agent.run(None, make_model("openai:gpt-x", base_url=url), run_dir, "Fix it.", 10, 120,
                    Hooks(executor=HostExecutor(workspace)))
    assert end.kind == Ending.TRANSPORT_ERROR
    trajectory = json.loads((run_dir.path / "agent" / "traj.json").read_text())
    assert trajectory["info"]["exit_status"] == "impasse:transport_error"


def test_mini_takes_flaky_sandbox_but_only_the_tool_gate(tmp_path):
    from impasse.agents.compat import check_agent
    from impasse.agents.pins import AgentSpecError
    from impasse.runs.matrix import MatrixSpec, plan
    from impasse.vocabulary import Duty, Gate

    mini = parse_agent("mini-swe-agent")
    check_agent(mini, Gate.TOOL, None)
    with pytest.raises(AgentSpecError, match="only --gate tool applies"):
        check_agent(mini, Gate.MARKER, None)
    with pytest.raises(AgentSpecError, match="stage-reporting duty"):
        check_agent(mini, Gate.TOOL, Duty.STAGE)
    spec = MatrixSpec(["scripted:oracle"], ["flaky_sandbox"], ["invoicekit-tax-rounding"],
                      agents=["mini-swe-agent", "codex"], out=tmp_path)
    assert {i.condition.name for i in plan(spec) if i.spec.agent == "mini-swe-agent@2.4.6"} == {"none", "flaky_sandbox"}


AUDITED = """
import json, sys, tempfile
from pathlib import Path
seen = []
def audit(event, args):
    if event == "socket.connect":
        seen.append(("connect", repr(args[1])))
    elif event == "socket.getaddrinfo":
        seen.append(("resolve", str(args[0])))
sys.addaudithook(audit)  # before litellm or mini-swe-agent is imported: their import is watched too
from tests.unit.test_mini_agent import HostExecutor, episode, make_workspace, PASSES
with tempfile.TemporaryDirectory() as tmp:
    end, *_ = episode(Path(tmp), HostExecutor(make_workspace(Path(tmp) / "workspace")), PASSES)
print(json.dumps({"end": end.kind, "seen": seen}))
"""


@needs_mini
def test_mini_and_litellm_connect_nowhere_but_the_relay_on_127_0_0_1():
    """Checked, not assumed: every connection and name lookup of the Python process, from the import
    of litellm and mini-swe-agent to the end of an episode, as Python's socket audit events show it."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("LITELLM_", "MSWEA_"))}
    done = subprocess.run([sys.executable, "-c", AUDITED], cwd=ROOT, capture_output=True, text=True, timeout=120,
                          env=env)
    assert done.returncode == 0, done.stderr[-2000:]
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert report["end"] == Ending.TASK_COMPLETE
    connects = [address for kind, address in report["seen"] if kind == "connect"]
    assert connects and all(address.startswith("('127.0.0.1', ") for address in connects), report["seen"]
    assert {host for kind, host in report["seen"] if kind == "resolve"} <= {"127.0.0.1"}, report["seen"]
