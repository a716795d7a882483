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
