"""A command's output read back from the file the agent's harness wrote it to is the command's output
(formats/output_files.py): its wall is met where the agent reads it, and a project file read the same
way stays a read."""

from __future__ import annotations

import json

from impasse.analysis.compiled_card import compile_card
from impasse.analysis.formats.output_files import read_back_as_output
from impasse.analysis.metrics import annotate
from impasse.analysis.normal_form import COMMAND, READ, Action, NStep, NTrajectory, Obs
from impasse.catalog.cards import get_card

OUTPUT = "/private/tmp/claude-501/-Users-me-repo/4780/tasks/bd7sefqkw.output"


def session(read_path: str) -> NTrajectory:
    started = NStep(1, "Running the API tests in the background.",
                    [Action("other", "npx jest 2>&1", kind=COMMAND)],
                    [Obs(f"Command running in background with ID: bd7sefqkw. Output is being written to: {OUTPUT}",
                         None, kind=COMMAND)])
    call = json.dumps({"name": "Read", "input": {"file_path": read_path}})
    read = NStep(2, "", [Action("other", call, kind=READ)],
                 [Obs("1\tFAIL API_tests/sensors.test.js\n2\t\n3\t    MongooseServerSelectionError: connect "
                      "ECONNREFUSED 127.0.0.1:27017\n", None, kind=READ)])
    return NTrajectory("r", "claude-code", "p", "m", None, "t", [started, read], "unknown")


def test_the_announced_file_read_back_is_the_commands_output_and_its_wall_is_met():
    trajectory = session(OUTPUT)
    read_back_as_output(trajectory)
    obs = trajectory.steps[1].observations[0]
    assert obs.kind == COMMAND and obs.output.splitlines()[2].startswith("    MongooseServerSelectionError")
    trajectory.condition = "service_down"
    assert annotate(trajectory, compile_card(get_card("service_down"), None)).row.t_star == 2


def test_another_file_read_stays_a_read_and_quotes_no_wall():
    trajectory = session("/Users/me/repo/docs/TROUBLESHOOTING.md")
    read_back_as_output(trajectory)
    assert trajectory.steps[1].observations[0].kind == READ
    trajectory.condition = "service_down"
    assert annotate(trajectory, compile_card(get_card("service_down"), None)).row.t_star is None
