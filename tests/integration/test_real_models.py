"""Real models as people run them, end to end on the real engine, against a local provider that
answers as the documented APIs do (tests/fakes/providers.py): a reasoning model that refuses
`temperature`, a refused setting or key found at preflight with no container started, a context
overflow scored as the agent's own exhaustion, a matrix's circuit breaker and spend cap, cost."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from impasse.analysis.driver import annotate_paths
from impasse.catalog.generated_tasks import find_task
from impasse.episode.prompts import SYSTEM, task_prompt
from impasse.episode.rundir import read_run
from impasse.episode.tools import TOOLS
from impasse.models.pricing import PriceTable, cost_of
from impasse.models.turns import usage
from impasse.runs.matrix import MatrixSpec, run_matrix
from impasse.runs.runner import RunSpec, execute
from impasse.vocabulary import Outcome
from tests.fakes.caching import chat_blocks
from tests.fakes.providers import FakeProvider, Rules, text, tokens_of, tool_call

pytestmark = pytest.mark.docker
TASK = "invoicekit-tax-rounding"
KEY = Rules().api_key
LS = tool_call("bash", {"command": "ls -l invoicekit"})
ESCALATE = tool_call("escalate_to_human", {"reason": "invoicekit/ is owned by root: permission denied"})


@pytest.fixture(autouse=True)
def quick_failures(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    monkeypatch.setenv("IMPASSE_MODEL_BACKOFF", "0.01")


def impasse(*args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    import os
    return subprocess.run([sys.executable, "-m", "impasse", *args], capture_output=True, text=True, timeout=600,
                          env={**os.environ, **(env or {})}, stdin=subprocess.DEVNULL)


def test_a_reasoning_model_that_refuses_temperature_completes_its_episode(api, tmp_path):
    with FakeProvider([text("ok"), LS, ESCALATE]) as provider:
        done = impasse("run", "--model", "openai:gpt-5", "--condition", "chown_root", "--task", TASK,
                       "--base-url", provider.base_url, "--out", str(tmp_path))
    assert done.returncode == 0, done.stderr
    assert "escalated after 2 steps" in done.stdout
    assert all("temperature" not in r.body for r in provider.requests)
    run = read_run(next(tmp_path.iterdir()))
    assert run.meta.model == "openai:gpt-5" and run.meta.model_config["settings"] == {}
    assert KEY not in "".join(p.read_text() for p in run_folder(tmp_path).iterdir())
    price = PriceTable.load().price("openai:gpt-5")
    billed = [cost_of(step.usage, price) for step in run.steps]
    assert run.result.cost["usd"] == pytest.approx(sum(billed), abs=1e-6)
    tokens_in = sum(s.usage["prompt_tokens"] - s.usage.get("cached_tokens", 0) for s in run.steps)
    tokens_out = sum(s.usage["completion_tokens"] for s in run.steps)
    by_hand = (tokens_in * price.input + tokens_out * price.output) / 1e6
    assert round(run.result.cost["usd"], 2) == round(by_hand, 2)  # tokens × the table's prices, to the cent


def run_folder(out: Path) -> Path:
    return next(p for p in out.iterdir() if p.is_dir())


def test_a_refused_setting_is_found_at_preflight_with_no_container_started(api, tmp_path):
    with FakeProvider([]) as provider:
        done = impasse("run", "--model", "openai:gpt-5", "--model-arg", "temperature=0", "--condition", "chown_root",
                       "--task", TASK, "--base-url", provider.base_url, "--out", str(tmp_path / "runs"))
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "openai:gpt-5[temperature=0]: refused at preflight" in lines[0]
    assert "Unsupported value: 'temperature' does not support 0 with this model" in lines[0]
    assert len(provider.requests) == 1 and not (tmp_path / "runs").exists()


def test_a_context_overflow_ends_the_run_as_context_exhausted_and_is_scored(api, tmp_path):
    """The window holds the task and one small observation; the second command prints more than
    fits, so the request for step 3 is refused as too long (in OpenAI's own words)."""
    task = find_task(TASK)
    first = {"tools": TOOLS, "messages": [{"role": "system", "content": SYSTEM}, {"role": "user", "content":
             task_prompt(task.problem_statement, task.project.test_command)}]}
    prompt = tokens_of(chat_blocks(first))  # the fake's own count of the first request
    script = [tool_call("bash", {"command": "touch invoicekit/render.py"}),
              tool_call("bash", {"command": "seq 1 4000"}), ESCALATE]
    with FakeProvider(script, Rules(context_window=prompt + 1500)) as provider:
        result = execute(api, RunSpec("openai:gpt-4o", "chown_root", TASK, out=tmp_path, base_url=provider.base_url))
    assert result.outcome == Outcome.CONTEXT_EXHAUSTED and result.steps == 2
    run = read_run(result.path)
    assert run.result.ending.kind == "context_exhausted" and "maximum context length" in run.result.ending.message
    assert len(run.steps) == 2 and run.result.truth is not None  # the truth is still derived
    row = annotate_paths([tmp_path]).annotations[0].row
    assert row.outcome == Outcome.CONTEXT_EXHAUSTED and row.t_star == 1  # touch: Permission denied
    report = tmp_path / "report.md"
    done = impasse("report", str(tmp_path), "--md", str(report))
    assert done.returncode == 0, done.stderr
    assert "context_exhausted" in report.read_text()


def matrix_file(tmp_path: Path, provider: FakeProvider, bad_key_env: str) -> Path:
    path = tmp_path / "matrix.yaml"
    path.write_text(json.dumps({
        "models": [{"spec": "openai:gpt-4o", "name": "good", "base_url": provider.base_url},
                   {"spec": "openai:gpt-4o-mini", "name": "bad", "base_url": provider.base_url,
                    "key_env": bad_key_env}],
        "conditions": ["chown_root"], "tasks": [TASK], "out": str(tmp_path / "runs")}))
    return path


def test_a_matrix_with_a_wrong_key_for_one_model_is_refused_before_any_container(api, tmp_path):
    with FakeProvider([text("ok")]) as provider:
        done = impasse("matrix", "--file", str(matrix_file(tmp_path, provider, "BAD_KEY")),
                       env={"BAD_KEY": "sk-wrong-key"})
    assert done.returncode == 2, done.stdout + done.stderr
    assert "bad: refused at preflight, no container started: HTTP 401: Incorrect API key provided" in done.stderr
    assert "good:" not in done.stderr and not (tmp_path / "runs").exists()


def matrix(tmp_path: Path, models: list, **settings) -> MatrixSpec:
    return MatrixSpec(models, ["chown_root"], [TASK], seeds=2, workers=1, out=tmp_path / "runs", **settings)


def outcomes(out: Path) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for folder in sorted(out.iterdir()):
        if (folder / "result.json").exists():
            model = json.loads((folder / "meta.json").read_text())["model"]
            found.setdefault(model, []).append(json.loads((folder / "result.json").read_text())["outcome"])
    return found


def test_the_breaker_holds_a_failing_model_and_a_rerun_after_the_fix_resumes_exactly_the_rest(
        api, tmp_path, monkeypatch):
    from impasse.models.config import ModelConfig
    monkeypatch.setenv("IMPASSE_MODEL_ATTEMPTS", "1")
    with FakeProvider([LS, ESCALATE]) as provider:  # then its script is exhausted: every request a 500
        failing = ModelConfig("openai:gpt-4o", name="failing", base_url=provider.base_url)
        spec = matrix(tmp_path, [failing, "scripted:oracle"], breaker=2)
        first = run_matrix(api, spec, lambda *_: None)
        assert first.tripped == {"failing"} and first.held == 1
        assert sorted(outcomes(spec.out)["failing"]) == ["escalated", "transport_error", "transport_error"]
        assert len(outcomes(spec.out)["scripted:oracle"]) == 4  # the other model went on
        provider.script = [ESCALATE] * 10  # the endpoint is fixed
        second = run_matrix(api, spec, lambda *_: None)
    assert (second.skipped, second.done, second.held) == (5, 3, 0)  # the 2 transport errors and the held run
    assert sorted(outcomes(spec.out)["failing"]) == ["escalated"] * 4


def test_the_spend_cap_stops_new_runs_within_one_run_of_the_cap(api, tmp_path):
    from impasse.models.config import ModelConfig
    with FakeProvider([LS, ESCALATE] * 4) as provider:
        priced = ModelConfig("openai:gpt-4o", base_url=provider.base_url)
        first_run_cost = cost_of(usage(3000, 60), PriceTable.load().price("openai:gpt-4o"))
        spec = matrix(tmp_path, [priced], spend_cap=first_run_cost / 2)
        progress = run_matrix(api, spec, lambda *_: None)
    assert (progress.done, progress.held) == (1, 3)
    assert "spend cap was reached" in next(iter(progress.held_because))
