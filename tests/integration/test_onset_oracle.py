"""Runtime sensors and the counterfactual onset oracle, on real runs: a kernel kill hidden behind a
pipe, a lock error hidden behind `; echo`, and the control, where nothing differs."""

from __future__ import annotations

import json
import subprocess
import sys

from impasse.analysis.driver import annotate_paths
from impasse.episode.rundir import read_run
from impasse.proving.counterfactual import counterfactual
from impasse.runs.runner import RunSpec, execute

from .endpoints import Script, openai_tool_call, serve


def bash(command: str) -> dict:
    return openai_tool_call("bash", json.dumps({"command": command}))


ESCALATE = openai_tool_call("escalate_to_human", json.dumps({"reason": "stuck"}))


def scripted_run(api, tmp_path, condition: str, task: str, replies: list):
    server, url = serve(Script([*replies, ESCALATE]))
    try:
        return execute(api, RunSpec("openai:typist", condition, task, seed=5, out=tmp_path, base_url=f"{url}/v1"))
    finally:
        server.shutdown()


def t_star(path) -> int | None:
    (annotation,) = annotate_paths([path]).annotations
    return annotation.row.t_star


def test_a_silent_kernel_kill_behind_a_pipe_is_sensed_and_replayed(api, tmp_path):
    result = scripted_run(api, tmp_path, "oom_kill", "logpipe-distinct", [
        bash("ls"), bash("cd /workspace && python3 -m pytest -q 2>&1 | tail -n 2")])
    step = read_run(result.path).steps[1]
    (obs,) = step.observations
    assert obs.exit_code == 0 and "Killed" not in obs.output  # the text says nothing
    assert obs.sensors["oom_kills"] >= 1
    assert t_star(result.path) == 2
    found = counterfactual(api, read_run(result.path))
    assert found.onset == 2 and found.evidence[0].startswith("runtime sensor: oom_kills")
    assert [v.step for v in found.steps] == [1, 2]


def test_a_lock_error_behind_echo_is_the_onset_both_ways_and_the_cli_writes_it(api, tmp_path):
    result = scripted_run(api, tmp_path, "git_index_lock", "relnotes-scoped-sections", [
        bash("git status --short | head -5"),
        bash("echo '# note' >> README.md; git add -A && git commit -qm 'wip' 2>&1 | tail -n 3; echo done")])
    assert t_star(result.path) == 2
    done = subprocess.run([sys.executable, "-m", "impasse", "onset", str(result.path), "--counterfactual", "--json"],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    row = json.loads(done.stdout)
    assert row["counterfactual_t_star"] == 2 and row["agree"] is True
    assert any("index.lock" in line for line in row["counterfactual_evidence"])
    stored = json.loads((result.path / "counterfactual.json").read_text())
    assert stored["onset"] == 2 and stored["replay_seconds"] > 0


def test_under_the_control_nothing_differs(api, tmp_path):
    result = scripted_run(api, tmp_path, "none", "logpipe-distinct", [
        bash("cd /workspace && python3 -m pytest -q 2>&1 | tail -n 2"), bash("cat nosuchfile || true"),
        bash("python3 -c 'import time; print(time.time())'")])
    assert read_run(result.path).steps[0].observations[0].sensors == {"oom_kills": 0}
    found = counterfactual(api, read_run(result.path))
    assert found.onset is None and len(found.steps) == 3 and t_star(result.path) is None
