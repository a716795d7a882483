"""A permission refusal on a file the agent itself wrote earlier in a foreign session (its own
script saved without the execute bit) is its own doing, not the environment's wall; the same
refusal on a file it never wrote still is one."""

from __future__ import annotations

from impasse.analysis.driver import annotate_auto, auto_cards
from impasse.analysis.normal_form import Action, NStep, NTrajectory, Obs
from impasse.catalog.cards import load_cards


def session(first: Action) -> NTrajectory:
    steps = [NStep(1, "Write the script.", [first], [Obs("", 0)]),
             NStep(2, "Run it.", [Action("bash", command="./solve.sh")],
                   [Obs("bash: line 1: ./solve.sh: Permission denied", 126)])]
    return NTrajectory("s", "chat-export", "s.json", "m", None, "t", steps, "unknown")


def onset(trajectory: NTrajectory):
    found = annotate_auto(trajectory, auto_cards(load_cards()))[0]
    return found.row.t_star, found.evidence.get("category")


def test_the_agents_own_script_without_the_execute_bit_is_no_wall():
    assert onset(session(Action("bash", command="cat > solve.sh <<'EOF'\necho done\nEOF"))) == (None, "none")
    assert onset(session(Action("edit_file", path="/app/solve.sh", content="echo done"))) == (None, "none")


def test_the_same_refusal_on_a_file_it_never_wrote_is_the_wall():
    assert onset(session(Action("bash", command="ls -la"))) == (2, "permission")


def two_steps(first: Action, first_output: str, second: Action, second_output: str, code: int) -> NTrajectory:
    steps = [NStep(1, "", [first], [Obs(first_output, 0)]), NStep(2, "", [second], [Obs(second_output, code)])]
    return NTrajectory("s", "chat-export", "s.json", "m", None, "t", steps, "unknown")


def test_the_projects_own_package_the_agent_listed_is_no_removed_dependency():
    """`ls -la opk` showed the workspace's own package; pytest run from elsewhere cannot import it."""
    missing = "E   ModuleNotFoundError: No module named 'opk'"
    listed = two_steps(Action("bash", command="ls -la opk"), "__init__.py\ncli\ncore", Action("bash", command="pytest"),
                       missing, 2)
    assert onset(listed) == (None, "none")
    path = two_steps(Action("bash", command="rg -n TODO opk/core"), "", Action("bash", command="pytest"), missing, 2)
    assert onset(path) == (None, "none")
    elsewhere = two_steps(Action("bash", command="ls -la"), "README.md", Action("bash", command="pytest"), missing, 2)
    assert onset(elsewhere) == (2, "missing_dependency")


def test_a_folder_named_in_a_note_another_tool_was_handed_is_no_package_of_the_workspace():
    """"missing modules (PIL/pytesseract)" in a memory tool's note names no folder `PIL` the workspace holds."""
    missing = "ModuleNotFoundError: No module named 'PIL'"
    noted = two_steps(Action("other", command='{"name": "memory_store", "input": {"text": "missing PIL/pytesseract"}}',
                             kind="other"), "stored", Action("bash", command="python3 ocr.py"), missing, 1)
    assert onset(noted) == (2, "missing_dependency")


def test_a_tree_walkers_note_on_an_entry_it_cannot_read_is_no_wall():
    """find, du and grep go on past an unreadable entry; a refusal of what was asked for still counts."""
    walked = two_steps(Action("bash", command="ls"), "", Action("bash", command="find ~ -name example_walk"),
                       "/home/u/sdk/build/example_walk\nfind: '/home/u/.cache/dconf': Permission denied", 1)
    assert onset(walked) == (None, "none")
    guarded = two_steps(Action("bash", command="ls"), "", Action("bash", command="find ~/Library -name '*.png'"),
                        "find: /Users/u/Library/Application Support/FaceTime: Operation not permitted", 1)
    assert onset(guarded) == (None, "none")  # macOS's privacy guard on a folder the walk passed
    refused = two_steps(Action("bash", command="ls"), "", Action("bash", command="touch notes.txt"),
                        "touch: cannot touch 'notes.txt': Permission denied", 1)
    assert onset(refused) == (2, "permission")


def test_a_file_read_before_the_agent_patched_it_was_the_checkouts():
    """Its mode came with the checkout: a patch that updates it made nothing."""
    steps = [NStep(1, "", [Action("other", path="/repo/run_tests.sh", kind="read")], [Obs("#!/bin/sh\npytest", 0)]),
             NStep(2, "", [Action("edit_file", path="/repo/run_tests.sh", content="#!/bin/sh\npytest -q")],
                   [Obs("", 0)]),
             NStep(3, "", [Action("bash", command="./run_tests.sh")],
                   [Obs("/bin/bash: line 1: ./run_tests.sh: Permission denied", 126)])]
    trajectory = NTrajectory("s", "chat-export", "s.json", "m", None, "t", steps, "unknown")
    assert onset(trajectory) == (3, "permission")


def test_what_a_passing_test_run_printed_is_the_tests_own_expected_errors():
    """An app's own check that a variable is set, exercised by its test, in a run where every test passed."""
    printed = ("tests/test_config.py::test_missing_key_is_reported PASSED\n"
               "Error: INVOICE_SIGNING_KEY is not set\n"
               "============================== 12 passed in 0.41s ==============================")
    passing = two_steps(Action("bash", command="ls"), "", Action("bash", command="pytest -v"), printed, 0)
    assert onset(passing) == (None, "none")
    failing = printed.replace("12 passed in", "1 failed, 11 passed in")
    assert onset(two_steps(Action("bash", command="ls"), "", Action("bash", command="pytest -v"), failing, 1))[0] == 2


def test_passing_summaries_of_the_common_runners():
    from impasse.analysis.self_caused import passing_test_run
    assert passing_test_run("Tests:       3 skipped, 40 passed, 43 total", 0)
    assert passing_test_run("  15 passing (120ms)", None)
    assert passing_test_run("test result: ok. 8 passed; 0 failed", 0)
    assert not passing_test_run("Tests:       2 failed, 40 passed, 42 total", 0)
    assert not passing_test_run("===== 12 passed in 0.41s =====", 1)


def test_a_path_the_agents_own_backticks_ran_is_its_quoting_not_a_wall():
    """zsh runs what a double-quoted review body backticks; in a quoted here-document the backticks are text,
    and the same refusal of a write is the wall."""
    body = 'gh pr review 344 --approve --body "Moves `api/package.json` deps; `warn` level"'
    ran = "(eval):1: command not found: warn\n(eval):1: permission denied: api/package.json"
    assert onset(two_steps(Action("bash", command="ls"), "", Action("bash", command=body), ran, 1)) == (None, "none")
    note = "cat > api/package.json <<'EOF'\nSee `api/package.json`\nEOF"
    refused = "(eval):1: permission denied: api/package.json"
    assert onset(two_steps(Action("bash", command="ls"), "", Action("bash", command=note), refused, 1)) \
        == (2, "permission")


def test_not_installed_after_running_a_program_names_the_program_not_a_package():
    """The agent's own fallback after running a program (`icalBuddy … || echo "icalBuddy not installed"`)
    says the program is absent; the same words after an import name the package."""
    ran = two_steps(Action("bash", command="ls"), "", Action("bash", command='icalBuddy -n eventsToday 2>/dev/null '
                                                                            '|| echo "icalBuddy not installed"'),
                    "icalBuddy not installed", 0)
    assert onset(ran) == (2, "missing_binary")
    second_line = two_steps(Action("bash", command="ls"), "", Action("bash", command='cd ~/cal\nicalBuddy eventsToday '
                                                                                   '|| echo "icalBuddy not installed"'),
                            "icalBuddy not installed", 0)
    assert onset(second_line) == (2, "missing_binary")
    imported = two_steps(Action("bash", command="ls"), "", Action("bash", command='python3 -c "import yaml" '
                                                                                 '|| echo "yaml not installed"'),
                         "yaml not installed", 0)
    assert onset(imported) == (2, "missing_dependency")
