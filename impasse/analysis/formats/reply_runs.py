"""LABELING.md rule 5's steps for the readers that walk a log's records in order, and the trajectory
they make with no more of a log than where the human spoke."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from impasse.analysis.formats.common import verdict_of
from impasse.analysis.normal_form import Action, NStep, NTrajectory, Obs
from impasse.analysis.session_log import turns_log


@dataclass
class ReplyRuns:
    """The model's first record after anything else opens a step; a result answers the step before it;
    the human's turn ends the run and is no observation."""

    steps: list[NStep] = field(default_factory=list)
    in_reply: bool = False
    calls: dict[str, Action] = field(default_factory=dict)  # call id → its action, for the result that answers it
    handed: set[int] = field(default_factory=set)  # the steps a human spoke after: their words ended a turn

    def reply(self) -> NStep:
        if not self.in_reply:
            self.steps.append(NStep(len(self.steps) + 1, ""))
            self.in_reply = True
        return self.steps[-1]

    def say(self, text: str) -> None:
        step = self.reply()
        step.text = f"{step.text}\n{text}" if step.text and text else step.text or text

    def call(self, call_id, action: Action) -> None:
        self.reply().actions.append(action)
        self.calls[str(call_id)] = action

    def called(self, call_id) -> Action | None:
        return self.calls.get(str(call_id))

    def answer(self, obs: Obs) -> None:
        self.in_reply = False
        if self.steps:
            self.steps[-1].observations.append(obs)

    def human(self) -> None:
        self.in_reply = False
        self.handed.add(len(self.steps))

    def trajectory(self, path: Path, source: str, model: str = "unknown", run_id: str | None = None) -> NTrajectory:
        """The steps as a trajectory whose log says where the human spoke, so a turn the human ended
        is not read as the session's own ending."""
        return NTrajectory(run_id=run_id or path.stem, source=source, path=str(path), model=model, condition=None,
                           task=path.stem, steps=self.steps, ending=verdict_of(self.steps),
                           log=turns_log(len(self.steps), self.handed))
