"""A file that is half one agent's session and half another's: read as the format detection chose, as
far as it goes, the other agent's lines passed over and counted in one warning, never read as steps
and never a traceback."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from impasse.analysis.driver import annotate_auto, auto_cards
from impasse.analysis.importers import load_foreign
from impasse.catalog.cards import load_cards
from impasse.cli.main import app

DENIED = "Exit code 1\nPermissionError: [Errno 13] Permission denied: 'app/models.py'"
CLAUDE = [
    {"type": "user", "sessionId": "s", "message": {"role": "user", "content": "fix the model"}},
    {"type": "assistant", "sessionId": "s", "message": {"role": "assistant", "model": "claude-x", "content": [
        {"type": "tool_use", "id": "a", "name": "Bash", "input": {"command": "python3 -m pytest -q"}}]}},
    {"type": "user", "sessionId": "s", "message": {"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": "a", "content": DENIED}]}},
]
CODEX = [
    {"timestamp": "2026-12-01T10:00:00Z", "type": "session_meta", "payload": {"id": "x", "cwd": "/w"}},
    {"timestamp": "2026-12-01T10:00:01Z", "type": "response_item", "payload": {
        "type": "function_call", "name": "shell", "call_id": "c1",
        "arguments": json.dumps({"command": ["bash", "-lc", "jq . data.json"]})}},
    {"timestamp": "2026-12-01T10:00:02Z", "type": "response_item", "payload": {
        "type": "function_call_output", "call_id": "c1",
        "output": json.dumps({"output": "bash: jq: command not found", "metadata": {"exit_code": 127}})}},
]


def write(path: Path, records: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


def test_the_other_agents_lines_are_passed_over_and_counted_either_way_round(tmp_path):
    for name, records in (("claude-first", CLAUDE + CODEX), ("codex-first", CODEX + CLAUDE)):
        session = load_foreign(write(tmp_path / f"{name}.jsonl", records))
        assert session.source == "claude-code" and session.length == 1
        assert session.problems == [f"{tmp_path / name}.jsonl: 3 lines of a Codex session passed over "
                                    "(the file is read as claude-code's)"]
        found = annotate_auto(session, auto_cards(load_cards()))[0]
        assert (found.row.t_star, found.evidence["category"]) == (1, "permission")  # Codex's jq is not read


def test_annotate_says_what_it_passed_over_and_reads_the_rest(tmp_path):
    write(tmp_path / "mixed.jsonl", CLAUDE + CODEX)
    done = CliRunner().invoke(app, ["annotate", str(tmp_path / "mixed.jsonl")], terminal_width=250)
    assert done.exit_code == 0 and "Traceback" not in done.output
    assert "3 lines of a Codex session passed over" in done.output and "sessions read: 1" in done.output


def test_one_agents_session_alone_warns_of_nothing(tmp_path):
    assert load_foreign(write(tmp_path / "claude.jsonl", CLAUDE)).problems == []
    assert load_foreign(write(tmp_path / "codex.jsonl", CODEX)).problems == []
