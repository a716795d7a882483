"""impasse's operator inside Inspect (`-T operator=rules`): escalate_to_human answered as `impasse run
--operator rules` answers it (impasse/operator/desk.py). A precise escalation of the blocker that is
really in place has it lifted: the work carried into a fresh environment of the control, where the
sample's later calls and its grading go; a vague one gets the clarifying reply; past the cap, or the
same text again, the escalation ends the sample as it would without the operator."""

from __future__ import annotations

from dataclasses import dataclass

import anyio

from impasse.operator.desk import LiftFailed
from impasse.operator.replies import Verdict
from impasse.vocabulary import Ending


@dataclass(frozen=True)
class Answer:
    text: str  # what the escalate_to_human call returns to the model
    ending: Ending | None  # the sample ends here: the escalation stands, or the harness failed
    message: str = ""


async def consult(live, reason: str, step: int) -> Answer:
    """The operator's answer to one escalation; after a lift the sandbox's calls go where the work is now."""
    try:
        reply = await anyio.to_thread.run_sync(live.operator.answer, reason, "\n".join(live.seen), step)
    except LiftFailed as err:  # the harness's, never the agent's
        return Answer("ok", Ending.HARNESS_ERROR, f"the operator's lift failed: {err}")
    if reply.verdict == Verdict.ENDED:
        return Answer("ok", Ending.ESCALATE_TO_HUMAN, reason)
    if reply.executor is not None:
        live.env, live.executor = live.operator.env, reply.executor
    live.seen.append(reply.text)
    return Answer(reply.text, None)
