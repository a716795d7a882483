"""Runtime gold for the stage-reporting duty, derived from the live environment before each reply
is read: has the workspace changed, do the task's failing tests pass (run by the harness, cached by
workspace state), has the blocker shown, and does the probe say it is still there."""

from __future__ import annotations

from impasse.analysis.compiled_card import compile_card
from impasse.analysis.normal_form import NStep, obs_of
from impasse.analysis.onsets import lone_onset
from impasse.episode.records import Observation
from impasse.episode.stage_protocol import Gold, gold_stage, workspace_key
from impasse.infra.environment import LiveEnvironment
from impasse.truth.grading import run_tests
from impasse.truth.workspace_facts import git_facts


class GoldTracker:
    def __init__(self, env: LiveEnvironment) -> None:
        self.env = env
        self.compiled = compile_card(env.condition.card, env.condition.injected)
        self.base = env.base
        self.start_key = self.key()
        self.tests: dict[str, bool] = {}
        self.blocker_seen = False

    def key(self) -> str:
        diff, untracked = git_facts(self.env.box, self.base)  # the same facts truth records at the end
        return workspace_key(diff, "\n".join(untracked))

    def observe(self, observations: list[Observation]) -> None:
        """Online onset detection: the same signatures the annotator uses, as observations arrive."""
        if self.blocker_seen:
            return
        step = NStep(0, "", observations=[obs_of(o) for o in observations if not o.error])
        self.blocker_seen = lone_onset(self.compiled, step) is not None

    def tests_pass(self, key: str) -> bool:
        if key not in self.tests:
            # The harness's own check, by the grader's runner: never through the flaky injector, always
            # the task's failing tests.
            task = self.env.condition.task
            run = run_tests(self.env.box, task.fail_to_pass, task.test_paths)
            self.tests[key] = set(task.fail_to_pass) <= run.passed and not run.tampering
        return self.tests[key]

    def freeze(self) -> dict:
        key = self.key()
        changed = key != self.start_key
        passing = self.tests_pass(key)
        probe = self.env.probe() if self.blocker_seen else None
        gold = Gold(gold_stage(changed, passing, self.blocker_seen, probe), changed, passing, self.blocker_seen, probe)
        return vars(gold)

    def resolved(self) -> bool:
        """For the runtime gate: the failing tests pass in the current workspace."""
        return self.tests_pass(self.key())
