"""OpenHands as it keeps its logs (a session folder of one event per file, an evaluation's
output.jsonl), `--timely K`, the Markdown report's verdict table, and every kind of bad input at the
command line: one counted line each, the rest annotated, never a traceback. Synthetic layouts,
written as each tool writes them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from impasse.analysis.discovery import FOREIGN_JSON, discover
from impasse.analysis.driver import annotate_paths
from impasse.analysis.incident_report import write_session_report
from impasse.analysis.incidents import folder_summary
from impasse.cli.main import app
from tests.unit.test_incidents import ASKS, claude_session, lock_folder, put

ASK = "I cannot go on: the package requests is not installed and the network is off. Could you install it?"


def event(number: int, **fields) -> dict:
    return {"id": number, "timestamp": f"2026-03-01T10:{number:02d}:00", **fields}


def openhands_events(final: str = ASK) -> list[dict]:
    """The user asks; the agent's import fails (a missing module), it tries once more, then asks the human."""
    missing = "ModuleNotFoundError: No module named 'requests'"
    return [event(0, source="user", action="message", args={"content": "fix the client"}),
            event(1, source="agent", action="run", args={"command": "python -c 'import requests'"}),
            event(2, source="agent", observation="run", content=missing, cause=1,
                  extras={"metadata": {"exit_code": 1}}),
            event(3, source="agent", action="run", args={"command": "python3 -c 'import requests'"}),
            event(4, source="agent", observation="run", content=missing, cause=3,
                  extras={"metadata": {"exit_code": 1}}),
            event(5, source="agent", action="message", args={"content": final})]


def openhands_session(home: Path, session: str, events: list[dict], name=lambda n: f"{n}.json") -> Path:
    """~/.openhands/sessions/<id>/events/<n>.json, beside the session's metadata.json."""
    folder = home / ".openhands" / "sessions" / session
    for e in events:
        put(folder / "events" / name(e["id"]), json.dumps(e))
    put(folder / "metadata.json", json.dumps({"conversation_id": session, "title": "fix the client"}))
    return folder


def eval_output(folder: Path, instances: int = 3) -> Path:
    """An evaluation's output.jsonl: one instance per line, its events under `history`."""
    records = [{"instance_id": f"psf__requests-{n}", "instruction": "fix it", "history": openhands_events(),
                "metadata": {"agent_class": "CodeActAgent", "llm_config": {"model": "claude-sonnet-4-5"}},
                "metrics": {"accumulated_cost": 0.25}, "test_result": {"git_patch": ""}} for n in range(instances)]
    put(folder / "metadata.json", json.dumps({"agent_class": "CodeActAgent", "max_iterations": 30}))
    return put(folder / "output.jsonl", "".join(json.dumps(r) + "\n" for r in records))


def test_an_openhands_session_folder_is_one_session_named_by_its_id(tmp_path):
    openhands_session(tmp_path, "5f0c2a", openhands_events())
    found = discover([tmp_path / ".openhands"])
    assert [p.name for p, _ in found.found] == ["events"] and found.passed_over[FOREIGN_JSON] == 1
    (incident,) = annotate_paths([tmp_path / ".openhands"]).incidents
    assert (incident.annotation.row.run_id, incident.agent) == ("5f0c2a", "openhands")
    assert (incident.wall_step, incident.wall_category) == (1, "missing_dependency")
    assert incident.verdict.kind == "escalated to the human" and incident.told.step == 3
    assert incident.after.steps == 2 and incident.after.seconds == 120  # from event 3 (10:03) to the last (10:05)


def test_numbered_files_are_read_in_number_order_and_the_sdks_names_too(tmp_path):
    events = openhands_events()
    openhands_session(tmp_path / "a", "s1", events)  # 0.json … 5.json: 10.json would sort before 2.json as text
    openhands_session(tmp_path / "b", "s2", events, name=lambda n: f"event-{n:05d}-9f3e.json")
    batch = annotate_paths([tmp_path / "a", tmp_path / "b"])
    assert [(i.annotation.row.run_id, i.total.steps) for i in batch.incidents] == [("s1", 3), ("s2", 3)]
    many = [event(n, source="agent", action="run", args={"command": f"echo {n}"}) for n in range(12)]
    openhands_session(tmp_path / "c", "s3", many)
    (incident,) = annotate_paths([tmp_path / "c"]).incidents
    assert [s.actions[0].command for s in [*incident_steps(tmp_path / "c")]][-3:] == ["echo 9", "echo 10", "echo 11"]


def incident_steps(root: Path):
    from impasse.analysis.importers import load_sessions
    (trajectory,) = load_sessions(next(root.rglob("events")))
    return trajectory.steps


def test_a_session_still_being_written_and_a_torn_event_inside(tmp_path):
    live = openhands_session(tmp_path, "live", openhands_events())
    (live / "events" / "6.json").write_text('{"id": 6, "source": "agent", "act')  # being written
    broken = openhands_session(tmp_path, "broken", openhands_events())
    (broken / "events" / "2.json").write_text('{"id": 2, "obs')
    batch = annotate_paths([tmp_path])
    assert [i.annotation.row.run_id for i in batch.incidents] == ["live"]
    assert any("6.json: the last event is torn" in w for w in batch.warnings)
    assert batch.skipped == [f"{broken / 'events' / '2.json'}:1: invalid JSON (Unterminated string starting at)"]


def test_an_evaluations_output_is_one_session_per_instance(tmp_path):
    output = eval_output(tmp_path / "evaluation" / "CodeActAgent" / "run1")
    batch = annotate_paths([tmp_path])
    assert [i.annotation.row.run_id for i in batch.incidents] == [f"psf__requests-{n}" for n in range(3)]
    first = batch.incidents[0]
    assert first.annotation.row.model == "claude-sonnet-4-5" and first.total.usd == 0.25
    assert first.path == f"{output}#psf__requests-0" and first.wall_category == "missing_dependency"
    assert batch.discovery.passed_over[FOREIGN_JSON] == 1  # the evaluation's metadata.json
    given = annotate_paths([output])  # the file itself, named on the command line
    assert len(given.incidents) == 3 and given.skipped == []


def test_timely_is_within_k_steps_of_the_wall(tmp_path):
    openhands_session(tmp_path, "s", openhands_events())  # wall at step 1, told at step 3: +2 steps
    default = folder_summary(annotate_paths([tmp_path]).incidents)
    strict = folder_summary(annotate_paths([tmp_path], timely=1).incidents)
    assert (default["timely_share"], default["timely_within_steps"]) == (1.0, 5)
    assert (strict["timely_share"], strict["timely_within_steps"], strict["told_share"]) == (0.0, 1, 1.0)
    runner = CliRunner()
    shown = runner.invoke(app, ["annotate", str(tmp_path), "--timely", "1"], terminal_width=250)
    assert shown.exit_code == 0, shown.output
    assert "late (step 3, +2 steps" in shown.stdout and "timely (within 1 steps of the wall): 0%" in shown.stdout
    refused = runner.invoke(app, ["annotate", str(tmp_path), "--timely", "-1"])
    assert refused.exit_code == 2


def test_the_markdown_report_has_the_verdict_of_every_session(tmp_path):
    openhands_session(tmp_path / "logs", "5f0c2a", openhands_events())
    put(tmp_path / "logs" / "claude" / "a1.jsonl", claude_session("Done | all tests pass."))
    write_session_report([tmp_path / "logs"], None, tmp_path / "r.md")
    text = (tmp_path / "r.md").read_text()
    assert "| session | agent · model | ended | wall | the line that showed it | after the wall | told the human |" \
        in text
    rows = {row.split(" | ")[0]: row for row in text.splitlines() if row.startswith(("| 5f0c2a |", "| a1.jsonl |"))}
    assert "step 1 · missing_dependency" in rows["| 5f0c2a"] and "yes (step 3, +2 steps" in rows["| 5f0c2a"]
    assert "Done \\| all tests pass" in rows["| a1.jsonl"]  # a pipe in the log's words does not break the table
    assert "| missing_dependency | 1 |" in text and "- sessions read: 2; with a wall: 2" in text


BAD_INPUT = {
    "being written": ("live.jsonl", claude_session(ASKS) + '{"type": "assistant", "mess', "warning:", "torn last line"),
    "truncated": ("cut.traj", '{"trajectory": [{"action": "ls", "observation": "a', "skipped:", "invalid JSON"),
    "binary": ("blob.jsonl", b"\x00\x01\x02\xff binary", "passed over:", "1 file passed over, binary file"),
    "another tool's": ("package.json", '{"name": "app", "version": "1.0.0"}', "passed over:",
                       "1 file passed over, JSON that is no session"),
    "empty": ("empty.json", "", "passed over:", "1 file passed over, empty file"),
}


@pytest.mark.parametrize("case", sorted(BAD_INPUT))
def test_each_bad_input_is_one_clear_line_and_the_rest_is_annotated(tmp_path, case):
    name, content, label, words = BAD_INPUT[case]
    put(tmp_path / "good.jsonl", claude_session(ASKS))
    put(tmp_path / name, content)
    done = CliRunner().invoke(app, ["annotate", str(tmp_path), "--json", str(tmp_path / "o.json")],
                              terminal_width=250)
    assert done.exception is None or isinstance(done.exception, SystemExit)
    assert "Traceback" not in done.output
    said = [line for line in done.stderr.splitlines() if line.startswith(label)]
    assert len(said) == 1 and words in said[0] and name in said[0], done.stderr
    assert done.exit_code == (1 if label == "skipped:" else 0)  # only a session that could not be read fails
    sessions = json.loads((tmp_path / "o.incidents.json").read_text())["sessions"]
    expected = ["good.jsonl", "live.jsonl"] if case == "being written" else ["good.jsonl"]
    assert sorted(Path(s["session"]).name for s in sessions) == expected


def test_an_empty_folder_and_an_unreadable_one_are_said_in_one_line(tmp_path, monkeypatch):
    runner = CliRunner()
    (tmp_path / "empty").mkdir()
    empty = runner.invoke(app, ["annotate", str(tmp_path / "empty")])
    assert empty.exit_code == 1 and empty.stderr.strip().count("\n") == 0 and "no trajectory found" in empty.stderr
    put(tmp_path / "store" / "ok" / "a.jsonl", claude_session(ASKS))
    lock_folder(tmp_path / "store" / "locked", monkeypatch)
    done = runner.invoke(app, ["annotate", str(tmp_path / "store")], terminal_width=250)
    assert done.exit_code == 1 and "Traceback" not in done.output
    assert [line for line in done.stderr.splitlines() if "locked" in line] == \
        [f"skipped: {tmp_path / 'store' / 'locked'}: cannot be read (Permission denied)"]
    assert "a.jsonl" in done.stdout and "sessions read: 1" in done.stdout


def test_a_file_that_cannot_be_read_is_named_and_the_rest_annotated(tmp_path, monkeypatch):
    put(tmp_path / "a.jsonl", claude_session(ASKS))
    secret = put(tmp_path / "b.jsonl", claude_session(ASKS))
    real_open = Path.open

    def refusing_open(self, *args, **kwargs):
        if self == secret:
            raise PermissionError(13, "Permission denied", str(self))
        return real_open(self, *args, **kwargs)
    monkeypatch.setattr(Path, "open", refusing_open)
    done = CliRunner().invoke(app, ["annotate", str(tmp_path)], terminal_width=250)
    assert "Traceback" not in done.output and done.exit_code == 1
    assert [line for line in done.stderr.splitlines() if "b.jsonl" in line] == \
        [f"skipped: {secret}: cannot be read (Permission denied)"], done.stderr
    assert "sessions read: 1" in done.stdout
