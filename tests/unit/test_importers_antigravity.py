"""Google Antigravity's trajectories read into steps: a run of planner records is a step, the result
records after it its observations, in the order of its calls; a command's status as its tool says it;
a step the tool could not carry out failed with no number; the human, the system's reminders and a
background task's later notice are no observation."""

from __future__ import annotations

import json

from impasse.analysis.importers import detect, load_foreign
from impasse.analysis.normal_form import ASK, COMMAND, LIST, WRITE
from impasse.analysis.verdicts import CLAIMED, ESCALATED, handed_back, verdict_of
from impasse.dialects.claude_code import FAILED_STATUS_UNKNOWN
from impasse.vocabulary import Tool

STAMPS = "Created At: 2026-05-23T20:39:05Z\nCompleted At: 2026-05-23T20:47:33Z\n"


def record(n: int, source: str, kind: str, content: str | None = None, status: str = "DONE", **more) -> dict:
    line = {"step_index": n, "source": source, "type": kind, "status": status, "created_at": "2026-05-23T20:19:14Z"}
    return line | ({"content": content} if content is not None else {}) | more


def planner(n: int, text: str = "", *calls: tuple[str, dict]) -> dict:
    """A planner record: every argument kept as a JSON text, as Antigravity keeps it."""
    tool_calls = [{"name": name, "args": {k: json.dumps(v) for k, v in args.items()}} for name, args in calls]
    return record(n, "MODEL", "PLANNER_RESPONSE", text or None, **({"tool_calls": tool_calls} if calls else {}))


def command_result(code: int, output: str) -> str:
    said = f"The command failed with exit code: {code}" if code else "The command completed successfully."
    return f"{STAMPS}\n\t\t\t\t{said}\n\t\t\t\tOutput:\n\t\t\t\t{output}\r\n\n"


SESSION = [
    record(0, "USER_EXPLICIT", "USER_INPUT", "<USER_REQUEST>\nBuild the site\n</USER_REQUEST>"),
    record(1, "SYSTEM", "CONVERSATION_HISTORY"),
    planner(2, "I will look for the config first.",
            ("grep_search", {"Query": "PORT", "SearchPath": "C:\\site"}),
            ("run_command", {"CommandLine": "python extract.py", "Cwd": "C:\\site", "WaitMsBeforeAsync": 5000})),
    record(3, "MODEL", "GREP_SEARCH", STAMPS + "Encountered error in step execution: error executing cascade step: "
           'CORTEX_STEP_TYPE_GREP_SEARCH: exec: "grep": executable file not found in %PATH%', status="ERROR"),
    record(4, "MODEL", "RUN_COMMAND", command_result(1, "Python was not found; run without arguments to install "
                                                        "from the Microsoft Store.")),
    record(5, "SYSTEM", "EPHEMERAL_MESSAGE", "The following is an <EPHEMERAL_MESSAGE> not actually sent by the user."),
    planner(6, "", ("run_command", {"CommandLine": "node extract.js", "Cwd": "C:\\site"})),
    record(7, "MODEL", "RUN_COMMAND", STAMPS + "Tool is running as a background task with task id: t/7",
           status="RUNNING"),
    record(8, "SYSTEM", "SYSTEM_MESSAGE", "Task id \"t/7\" finished with result: The command completed successfully."),
    planner(9, "", ("write_to_file", {"TargetFile": "C:\\site\\index.html", "CodeContent": "<html></html>",
                                      "Overwrite": True})),
    record(10, "MODEL", "CODE_ACTION", STAMPS + "Created file file:///C:/site/index.html with requested content."),
    planner(11, "", ("ask_question", {"questions": [{"question": "Which colours?"}]})),
    record(12, "MODEL", "ASK_QUESTION", STAMPS + "A1: green and white"),
    record(13, "USER_EXPLICIT", "RUN_COMMAND", command_result(0, "served")),
    record(14, "USER_EXPLICIT", "USER_INPUT", "<USER_REQUEST>\nnow finish it\n</USER_REQUEST>"),
    planner(15, "", ("run_command", {"CommandLine": "npm run build", "Cwd": "C:\\site"})),
    record(16, "MODEL", "RUN_COMMAND", command_result(0, "built in 354ms")),
    planner(17, "I have completed the site: it builds and every page renders."),
]


def write(tmp_path, records) -> object:
    path = tmp_path / "transcript.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


def test_an_antigravity_trajectory_is_its_steps_with_each_commands_status(tmp_path):
    trajectory = load_foreign(write(tmp_path, SESSION))
    assert detect(("jsonl", SESSION)) == "antigravity" and trajectory.source == "antigravity"
    first, background, edit, ask, build, last = trajectory.steps
    assert first.text == "I will look for the config first."
    assert [a.kind for a in first.actions] == [LIST, COMMAND] and first.actions[1].command == "python extract.py"
    searched, ran = first.observations
    assert searched.exit_code == FAILED_STATUS_UNKNOWN and 'exec: "grep": executable file not found' in searched.output
    assert (ran.exit_code, ran.output) == (1, "Python was not found; run without arguments to install from the "
                                              "Microsoft Store.\n\n")
    # gone to the background: no status; the task's later notice is the system's, no observation
    assert [(o.exit_code, o.kind) for o in background.observations] == [(None, COMMAND)]
    assert edit.actions[0].tool == Tool.EDIT_FILE and edit.actions[0].kind == WRITE
    assert edit.actions[0].path == "C:\\site\\index.html" and edit.observations[0].output.startswith("Created file")
    assert ask.actions[0].kind == ASK and ask.observations[0].output == "A1: green and white"
    # what the human ran himself is neither a step nor an observation; his request ends the run
    assert [(o.exit_code, o.output.strip()) for o in build.observations] == [(0, "built in 354ms")]
    assert (last.actions, last.observations) == ([], [])
    assert verdict_of(trajectory).kind == CLAIMED
    # the human's request after the ask's step: that step's words ended a turn the human saw, no other did
    assert [handed_back(trajectory, step.index) for step in trajectory.steps] == [False, False, False, True, False,
                                                                                 True]


def test_a_person_declining_a_command_is_a_failed_step_and_a_question_asked_last_is_an_escalation(tmp_path):
    declined = record(3, "MODEL", "RUN_COMMAND", STAMPS + "\n\t\tEncountered error in step execution: user denied "
                      "permission for command(npx -y create-vite). The following instruction was provided by the user "
                      "as an alternative: run it yourself\n", status="ERROR")
    asked = planner(4, "", ("ask_question", {"questions": [{"question": "Shall I use Vite or Next.js?"}]}))
    trajectory = load_foreign(write(tmp_path, [SESSION[0], planner(2, "", ("run_command", {"CommandLine": "npx -y "
                                                                                          "create-vite"})),
                                               declined, asked]))
    (observation,) = trajectory.steps[0].observations
    assert observation.exit_code == FAILED_STATUS_UNKNOWN and "user denied permission" in observation.output
    assert verdict_of(trajectory).kind == ESCALATED


def test_a_later_antigravity_says_the_status_in_other_words(tmp_path):
    """`The command exited with code 127.` (later versions): the status and the output under it, unindented."""
    said = ("\n\t\t\t\tThe command exited with code 127.\n\t\t\t\tOutput:\n"
            "\t\t\t\tbash: строка 1: gh: команда не найдена\n")
    trajectory = load_foreign(write(tmp_path, [
        record(0, "USER_EXPLICIT", "USER_INPUT", "<USER_REQUEST>\nrelease it\n</USER_REQUEST>"),
        planner(1, "", ("run_command", {"CommandLine": "gh release create v1", "Cwd": "/home/a/app"})),
        record(2, "MODEL", "RUN_COMMAND", STAMPS + said)]))
    [ran] = trajectory.steps[0].observations
    assert (ran.exit_code, ran.output.strip()) == (127, "bash: строка 1: gh: команда не найдена")
