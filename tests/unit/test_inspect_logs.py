"""`impasse annotate` reads Inspect logs (.eval and .json) through inspect-ai's own reader: each sample
of each epoch a session, its steps from the messages, its ending from impasse's verdict tools or
Inspect's `submit`, else from the limit or error that stopped it, else its last words; its wall, tokens
and cost from the sample. The logs are written by inspect-ai itself. A torn or foreign `.eval` is one
line and the rest is annotated."""

from __future__ import annotations

import json
import zipfile

import pytest
from typer.testing import CliRunner

pytest.importorskip("inspect_ai", reason="the inspect extra is not installed: pip install -e '.[inspect]'")
from inspect_ai.log import (  # noqa: E402
    EvalConfig,
    EvalDataset,
    EvalError,
    EvalLog,
    EvalSample,
    EvalSampleLimit,
    EvalSpec,
    write_eval_log,
)
from inspect_ai.model import (  # noqa: E402
    ChatMessageAssistant,
    ChatMessageSystem,
    ChatMessageTool,
    ChatMessageUser,
    ModelUsage,
)
from inspect_ai.tool import ToolCall, ToolCallError  # noqa: E402

from impasse.analysis.discovery import discover  # noqa: E402
from impasse.analysis.importers import ImportProblem, load_sessions  # noqa: E402
from impasse.analysis.verdicts import ABORTED, CLAIMED, ESCALATED, OUT_OF_BUDGET, verdict_of  # noqa: E402
from impasse.cli.main import app  # noqa: E402
from impasse.vocabulary import Ending  # noqa: E402
from tests.unit.inspect_log_files import write_log  # noqa: E402

DENIED = "PermissionError: [Errno 13] Permission denied: 'invoicekit/money.py'"


def turn(text: str, call_id: str, function: str, **arguments) -> ChatMessageAssistant:
    return ChatMessageAssistant(content=text, tool_calls=[ToolCall(id=call_id, function=function, arguments=arguments)])


def result(call_id: str, text: str, function: str = "bash", error: str | None = None) -> ChatMessageTool:
    return ChatMessageTool(content=text, tool_call_id=call_id, function=function,
                           error=ToolCallError("unknown", error) if error else None)


def sample(sample_id: str, tail: list, **extra) -> EvalSample:
    head = [ChatMessageSystem(content="You are a coding agent."), ChatMessageUser(content="Fix the rounding bug."),
            turn("Let me run the tests.", "c1", "bash", cmd="python3 -m pytest -q"),
            result("c1", DENIED, error="exit status 1")]
    return EvalSample(id=sample_id, epoch=1, input="Fix the rounding bug.", target="", messages=head + tail,
                      started_at="2026-12-04T10:00:00+00:00", completed_at="2026-12-04T10:02:30+00:00",
                      model_usage={"openai/gpt-x": ModelUsage(input_tokens=900, output_tokens=100, total_tokens=1000,
                                                              total_cost=0.25)}, **extra)


SAMPLES = [
    sample("asks", [turn("The tree is root-owned.", "c2", "escalate_to_human",
                         reason="invoicekit/money.py is owned by root; please chown it to my user.")]),
    sample("submits", [turn("Done.", "c2", "submit", answer="Fixed the rounding; all tests pass.")]),
    sample("runs-out", [turn("Trying again.", "c2", "bash", cmd="ls -la"), result("c2", "total 8")],
           limit=EvalSampleLimit(type="message", limit=8)),
    sample("errored", [], error=EvalError(message="RuntimeError: sandbox exec failed: container exited",
                                          traceback="", traceback_ansi="")),
]
VERDICTS = {"asks": ESCALATED, "submits": CLAIMED, "runs-out": OUT_OF_BUDGET, "errored": ABORTED}


def write(path, samples=SAMPLES):
    return write_log(path, samples)


@pytest.mark.parametrize("suffix", [".eval", ".json"])
def test_each_sample_is_a_session_with_its_steps_ending_wall_and_cost(tmp_path, suffix):
    sessions = load_sessions(write(tmp_path / f"log{suffix}"))
    assert sorted(s.run_id for s in sessions) == sorted(f"impasse_tasks/{s.id}#1" for s in SAMPLES)
    by_id = {s.run_id.split("/")[1].removesuffix("#1"): s for s in sessions}
    assert {name: verdict_of(s).kind for name, s in by_id.items()} == VERDICTS
    asks = by_id["asks"]
    assert asks.ending == Ending.ESCALATE_TO_HUMAN and asks.model == "openai/gpt-x"
    assert asks.steps[0].actions[0].command == "python3 -m pytest -q"
    assert DENIED in asks.steps[0].observations[0].output and "exit status 1" in asks.steps[0].observations[0].output
    assert "chown it to my user" in asks.steps[-1].actions[0].message
    assert by_id["submits"].ending == Ending.TASK_COMPLETE
    assert verdict_of(by_id["runs-out"]).line == "message limit (8)"
    assert "sandbox exec failed" in verdict_of(by_id["errored"]).line
    log = asks.log
    assert (log.total_tokens, log.total_usd) == (1000, 0.25)
    assert log.ended_at - log.steps[0].at == 150.0


def test_a_folder_of_logs_is_found_and_annotated_in_one_table(tmp_path):
    write(tmp_path / "logs" / "a.eval")
    write(tmp_path / "logs" / "b.json", SAMPLES[:1])
    (tmp_path / "logs" / "notes.json").write_text(json.dumps({"version": "x", "about": "not a log"}))
    found = discover([tmp_path / "logs"])
    assert sorted(p.name for p, _ in found.found) == ["a.eval", "b.json"]
    done = CliRunner().invoke(app, ["annotate", str(tmp_path / "logs"), "--json", str(tmp_path / "out.json")],
                              terminal_width=250)
    assert done.exit_code == 0, done.output
    rows = json.loads((tmp_path / "out.json").read_text())
    assert sorted(r["run_id"] for r in rows) == sorted([f"impasse_tasks/{s.id}#1" for s in SAMPLES]
                                                      + ["impasse_tasks/asks#1"])


def test_a_torn_eval_is_one_line_and_the_rest_is_annotated(tmp_path):
    whole = write(tmp_path / "logs" / "whole.eval")
    torn = tmp_path / "logs" / "torn.eval"
    torn.write_bytes(whole.read_bytes()[:300])
    with pytest.raises(ImportProblem, match=r"torn\.eval: not a readable Inspect log"):
        load_sessions(torn)
    done = CliRunner().invoke(app, ["annotate", str(tmp_path / "logs")], terminal_width=250)
    assert done.exit_code == 1 and "Traceback" not in done.output
    assert [line for line in done.output.splitlines() if "torn.eval" in line]
    assert "sessions read: 4" in done.stdout


def test_a_zip_that_is_no_inspect_log_is_said_so(tmp_path):
    foreign = tmp_path / "other.eval"
    with zipfile.ZipFile(foreign, "w") as archive:
        archive.writestr("readme.txt", "not an evaluation")
    with pytest.raises(ImportProblem, match=r"other\.eval: not a readable Inspect log"):
        load_sessions(foreign)


def test_an_eval_that_is_not_a_zip_is_passed_over_in_a_folder(tmp_path):
    (tmp_path / "x.eval").write_text("an R script, say\n")
    found = discover([tmp_path])
    assert found.found == [] and sum(found.passed_over.values()) == 1


def test_a_sample_in_impasses_sandbox_is_annotated_under_its_card(tmp_path):
    """The card is in the sandbox spec (the eval's, or the sample's own): no other card is tried."""
    from inspect_ai.util import SandboxEnvironmentSpec

    from impasse.inspect_ext.sandbox import ImpasseSandboxConfig
    own = sample("own", [])
    own.sandbox = SandboxEnvironmentSpec("impasse", ImpasseSandboxConfig(card="read_only_fs"))
    log = EvalLog(eval=EvalSpec(created="2026-12-04T10:00:00+00:00", task="impasse_tasks", dataset=EvalDataset(),
                                model="impasse/oracle", config=EvalConfig(),
                                sandbox=SandboxEnvironmentSpec("impasse", ImpasseSandboxConfig(card="chown_root"))),
                  samples=[SAMPLES[0], own], status="success")
    write_eval_log(log, str(tmp_path / "log.eval"))
    conditions = {s.run_id: s.condition for s in load_sessions(tmp_path / "log.eval")}
    assert conditions == {"impasse_tasks/asks#1": "chown_root", "impasse_tasks/own#1": "read_only_fs"}
    plain = load_sessions(write(tmp_path / "plain.eval"))
    assert {s.condition for s in plain} == {None}  # another sandbox: every card is tried
