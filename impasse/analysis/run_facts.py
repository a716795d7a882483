"""What a trajectory says of its run as a whole, apart from its steps: the outcome it recorded or
implies, and whether its blocker was in place before step 1."""

from __future__ import annotations

from impasse.analysis.normal_form import NTrajectory
from impasse.vocabulary import ending_of, outcome_of


def derived_outcome(trajectory: NTrajectory) -> str:
    """The outcome the run recorded (ours), else the one its ending and known truth imply."""
    if trajectory.outcome:
        return trajectory.outcome
    return outcome_of(ending_of(trajectory.ending), trajectory.resolved)


def blocker_landed(trajectory: NTrajectory, control: bool) -> bool | None:
    """Whether the blocker was in place before step 1. Our finished runs always say: a blocked run
    whose probe did not hold at the start (or never ran) did not land, and the runner ended it as
    a harness error. A foreign run is known only where it recorded the probe (impasse's ATIF export);
    a run cut short left no result, so nothing says."""
    if control or not trajectory.finished:
        return None
    if trajectory.source == "impasse":
        return trajectory.blocker_active_at_start is True
    return trajectory.blocker_active_at_start
