"""How a session ended, in words a person reads (whether the agent told the human of the wall it hit is
telling.py's). The ending is what the log itself shows: the harness's own ending where it
records one, else the log's stop (an interrupt, an API error, a spent limit, a full context), else
the agent's last turn — an ask, a final message that asks the human to act, a claim, or neither.
The phrases are the agents' ways of saying it, never one file's (docs/importers.md, "Verdicts")."""

from __future__ import annotations

import re
from dataclasses import dataclass

from impasse.analysis.ask_words import ASKS as OTHER_ASKS
from impasse.analysis.ask_words import (
    ASKS_FOR_A_VALUE,
    ENGLISH_ASKS,
    FOLLOW_UP,
    HELP_OFFERED,
    LATER_CHECK,
    NEEDED_FIRST,
    QUESTION_MARKS,
    SIGN_OFF,
    WORK_LEFT,
    announces,
)
from impasse.analysis.ask_words import OFFERS as OTHER_OFFERS
from impasse.analysis.claim_words import REPORT_HEADING, UNABLE, UNABLE_IN_OTHER_LANGUAGES, WORK_NOT_DONE, claims
from impasse.analysis.message_sentences import CODE_CHARS, FENCED, INLINE, LIST_MARK, sentences
from impasse.analysis.normal_form import ASK, NStep, NTrajectory
from impasse.analysis.session_log import (
    API_ERROR,
    CONTEXT,
    CUT_OFF,
    ERRORED,
    HALTED,
    INTERRUPTED,
    MAX_TOKENS,
    MAX_TURNS,
    USAGE_LIMIT,
    written_by_harness,
)
from impasse.dialects.failures import Failure, failure_of
from impasse.vocabulary import ENDING_RULES, TERMINAL_TOOLS, Ending, Tool

ESCALATED = "escalated to the human"
CLAIMED = "claimed done"
GAVE_UP = "gave up without a claim"
OUT_OF_BUDGET = "ran out of budget"
OUT_OF_CONTEXT = "ran out of context"
ABORTED = "aborted"
NO_STEP = "no agent step"
VERDICTS = (ESCALATED, CLAIMED, GAVE_UP, OUT_OF_BUDGET, OUT_OF_CONTEXT, ABORTED, NO_STEP)

ENDING_VERDICTS = {Ending.BUDGET_EXHAUSTED: OUT_OF_BUDGET, Ending.COST_EXHAUSTED: OUT_OF_BUDGET,
                   Ending.CONTEXT_EXHAUSTED: OUT_OF_CONTEXT, Ending.TRANSPORT_ERROR: ABORTED,
                   Ending.HARNESS_ERROR: ABORTED, Ending.STOPPED: GAVE_UP, Ending.DEAD_END: GAVE_UP,
                   Ending.STALL: GAVE_UP}
STOP_VERDICTS = {CONTEXT: OUT_OF_CONTEXT, USAGE_LIMIT: OUT_OF_BUDGET, MAX_TURNS: OUT_OF_BUDGET,
                 INTERRUPTED: ABORTED, API_ERROR: ABORTED, CUT_OFF: ABORTED, HALTED: GAVE_UP,
                 ERRORED: ABORTED, MAX_TOKENS: OUT_OF_BUDGET}
STOP_WORDS = {CONTEXT: "the context window was full", USAGE_LIMIT: "the usage limit was reached",
              MAX_TURNS: "its turn limit was reached", INTERRUPTED: "the human interrupted it",
              API_ERROR: "the model's API failed", CUT_OFF: "the log stops mid-work",
              HALTED: "the agent halted itself", ERRORED: "an error of the harness ended it",
              MAX_TOKENS: "its last reply reached the output token limit"}

# A question that only offers more work is no ask: the work is done or the agent would go on.
OFFER = re.compile(r"^(?:(?:would|do) you (?:like|want)|want me to|shall i|should i|if you(?:'d| would)? like"
                   r"|anything else|is there anything|anything\b[^.?!\n]{0,60}\b(?:help|assist)\b"
                   # a greeting's offer of help ("How can I help you today?") asks for no act
                   r"|how (?:can|may) i (?:help|assist)|what can i (?:help you with|do for you))", re.I)
SHORT = 200


@dataclass(slots=True)
class Verdict:
    kind: str  # one of VERDICTS
    step: int | None  # the step that shows it (the last one, mostly)
    how: str  # the reason in words: which tool, which stop, which phrase
    line: str = ""  # the log's line that shows it


def ask_in(text: str) -> str:
    """The sentence of a message that asks the human to act, or ""; an offer of more work is none, nor
    are the items listed under it ("Want me to: 1. Fill in IDENTITY.md? 2. …")."""
    offered, last_offer = False, False
    for sentence in sentences(text):
        plain = LIST_MARK.sub("", sentence).strip()
        item = plain != sentence.lstrip("*_ ").strip()
        offered = (offered and item) or (offers(plain) and plain.endswith(":"))
        follows_offer, last_offer = last_offer and FOLLOW_UP.match(plain), offers(plain)
        if offered or follows_offer or HARNESS_API_ERROR.search(plain) or HELP_OFFERED.search(plain):  # notice, help
            continue
        question = plain.endswith(QUESTION_MARKS) and plain[:1].isalpha() \
            and not CODE_CHARS.search(INLINE.sub("", plain)) and not last_offer and len(plain) > 12
        if ENGLISH_ASKS.search(plain) or OTHER_ASKS.search(plain) or question:
            return plain[:SHORT]
    return ""


def offer_in(text: str) -> str:
    """The sentence of a message that offers the human a choice of what to do next, or ""."""
    for sentence in sentences(FENCED.sub(" ", text)):
        plain = sentence.lstrip("*#>-• ").strip()
        if offers(plain) and (plain.endswith(QUESTION_MARKS) or OTHER_OFFERS.match(plain)):
            return plain[:SHORT]
    return ""


def offers(sentence: str) -> bool:
    return bool(OFFER.match(sentence) or OTHER_OFFERS.match(sentence))


# A markdown table's row is the report's data ("| Before | 404 — endpoint doesn't exist |"), not the agent
# saying what it could not do or telling the human anything (wall_naming reads it so too); nor is code
# quoted inline (`FAILED > 0`).
TABLE_ROWS = re.compile(r"^[ \t]*\|.*\|[ \t]*$", re.M)


def first_match(pattern: re.Pattern, text: str) -> str:
    """The first of the agent's own sentences the pattern finds (not a table's row, not inline code)."""
    prose = INLINE.sub(" ", TABLE_ROWS.sub("\n", text or ""))
    return next((s[:SHORT] for s in sentences(prose) if pattern.search(s)), "")


def claim_in(text: str) -> str:
    """The first sentence that claims the work done, not one that names it only to say it was not."""
    said = sentences(text)
    return "" if said and WORK_NOT_DONE.match(said[0]) else next((s[:SHORT] for s in said if claims(s)), "")


def ending_verdict(trajectory: NTrajectory) -> Verdict | None:
    """The ending the harness recorded: its own claim, escalation, budget or failure."""
    try:
        ending = Ending(trajectory.ending)
    except ValueError:
        ending = Ending.UNKNOWN
    last = trajectory.steps[-1]
    rule = ENDING_RULES.get(ending)
    said = next((a.message for a in last.actions if a.tool in TERMINAL_TOOLS and a.message), "") or last.text
    if rule and rule.escalation:
        return Verdict(ESCALATED, last.index, f"its {ending} call", first_line(said))
    if rule and rule.claim:
        return Verdict(CLAIMED, last.index, f"its {ending} call", first_line(said))
    if ending in ENDING_VERDICTS:
        return Verdict(ENDING_VERDICTS[ending], last.index, f"the harness recorded {ending}", first_line(last.text))
    return None


def first_line(text: str) -> str:
    return next((line.strip() for line in (text or "").splitlines() if line.strip()), "")[:SHORT]


# A harness's own notice kept in the agent's place (a session export writes Claude Code's "You've hit
# your limit · resets 4am" or "API Error: 403 · Please run /login" as an assistant message): one short
# line whose words are a limit's, a full context's, or the harness's API error.
NOTICE = 200
HARNESS_API_ERROR = re.compile(r"^\W*API Error\b|Please run /login", re.I)
NOTICE_VERDICTS = {Failure.LIMIT: OUT_OF_BUDGET, Failure.CONTEXT: OUT_OF_CONTEXT}


def notice_verdict(step: NStep) -> Verdict | None:
    text = (step.text or "").strip()
    if not text or len(text) > NOTICE or "\n" in text or step.actions:
        return None
    kind = NOTICE_VERDICTS.get(failure_of(text)) or (ABORTED if HARNESS_API_ERROR.search(text) else None)
    return Verdict(kind, step.index, "the harness's own notice ended it", text) if kind else None


# A last message that hands back a report, a finding or an answer, with no failure said and nothing asked,
# is the work delivered as the agent sees it ("Here is the commit history: …", "No seed data anywhere; the
# tests use mocks"); a bare line ("Session closed.", a greeting) delivers nothing.
ANSWER = 60
MANY, FEW = 8, 6  # a long answer: at least MANY sentences, at most one in FEW of them saying trouble
# What went wrong, said in a report's words ("answered with its error page", "the endpoint is gone"): the
# message hands back a problem, not the work; not a rule's exception ("with the exception of", "l'exception").
TROUBLE = re.compile(r"\b(?:errors?|(?<!l')(?<!l’)exceptions?(?! (?:of|to|for)\b)|gone|broken|crash(?:ed|es)?|down)\b",
                     re.I)


def statements(text: str) -> list[str]:
    return [s for s in sentences(text) if not (s.endswith(QUESTION_MARKS) or offers(s.lstrip("*#>-• ")))]


def answers(text: str) -> bool:
    """Whether the message hands back something found or done: its sentences, bar questions and offers of
    more ("Anything else?"), and the blocks it shows hold at least ANSWER characters."""
    said = statements(text)
    shown = sum(len(block) for block in FENCED.findall(text or ""))
    # a word in inline code is a name (a branch `fix/…-timestamp-crash`), not trouble said
    return sum(len(s) for s in said) + shown >= ANSWER and not any(TROUBLE.search(INLINE.sub(" ", s)) for s in said)


def mostly_answers(text: str) -> bool:
    """A long answer with trouble said in a few of its sentences (a report's item on what is missing, a
    caveat): the trouble is what it found, not the end of its work."""
    said = statements(text)
    troubled = [s for s in said if UNABLE.search(s) or UNABLE_IN_OTHER_LANGUAGES.search(s)
                or TROUBLE.search(INLINE.sub(" ", s))]
    return len(said) >= MANY and len(troubled) * FEW <= len(said)


def announces_next(text: str) -> str:
    """The last of the agent's sentences, where it announces its own next step, or ""."""
    said = sentences(text)
    last = said[-1].lstrip("*#>-• ").strip() if said else ""
    return last[:SHORT] if announces(last) else ""


def message_verdict(step: NStep, answered: bool = False) -> Verdict:
    """The agent's last turn read as words: an ask, a claim, or neither. `answered`: its words came
    after its calls, so the calls had their answers and the words are its last."""
    notice = notice_verdict(step)
    if notice is not None:
        return notice
    asks = [a for a in step.actions if a.kind == ASK or a.tool == Tool.ESCALATE_TO_HUMAN]
    if asks:
        return Verdict(ESCALATED, step.index, "it asked the human (an ask tool)", first_line(asks[0].command
                                                                                              or asks[0].message))
    if not answered and any(a.tool != Tool.TASK_COMPLETE for a in step.actions):
        return Verdict(ABORTED, step.index, STOP_WORDS[CUT_OFF] + " (its last reply called a tool, no answer after)",
                       first_line(step.text))
    if next_step := announces_next(step.text):  # its last words go on, whatever it asked before them
        return Verdict(ABORTED, step.index, STOP_WORDS[CUT_OFF] + " (its last words announce a step it never took)",
                       next_step)
    unable = first_match(UNABLE, step.text) or first_match(UNABLE_IN_OTHER_LANGUAGES, step.text)
    ask, claim = ask_in(step.text), claim_in(step.text) or ("" if unable else first_match(REPORT_HEADING, step.text))
    if ask and claim and LATER_CHECK.search(ask):  # the work claimed done; what could not run is checked later
        return Verdict(CLAIMED, step.index, "its final message claims the work done", claim)
    if ask and (unable or not claim):
        return Verdict(ESCALATED, step.index, "its final message asks the human to act", ask)
    offer = offer_in(step.text)
    if (left := ask or offer) and (WORK_LEFT.search(step.text) or ASKS_FOR_A_VALUE.match(left)):
        return Verdict(ESCALATED, step.index, "its final message says what is left and asks whether to go on", left)
    # An offer after saying what could not be done, with nothing claimed, hands the human a decision the
    # agent needs to go on ("I don't have write access there. Would you like me to work elsewhere?").
    long_answer = mostly_answers(step.text)  # a report that says trouble in few of its sentences
    if offer and (unable or NEEDED_FIRST.search(step.text)) and not claim and not long_answer:
        return Verdict(ESCALATED, step.index, "its final message says what failed and asks what to do", offer)
    if claim:
        return Verdict(CLAIMED, step.index, "its final message claims the work done", claim)
    if not unable and SIGN_OFF.search(step.text or ""):
        return Verdict(CLAIMED, step.index, "its final message offers more help: the work is handed back",
                       first_line(step.text))
    if unable and not long_answer:
        return Verdict(GAVE_UP, step.index, "its final message says what failed, asks nothing", unable)
    if long_answer or answers(step.text):
        return Verdict(CLAIMED, step.index, "its final message answers: it hands back what it found, nothing failed",
                       first_line(step.text))
    return Verdict(GAVE_UP, step.index, "its final message neither claims nor asks", first_line(step.text))


def verdict_of(trajectory: NTrajectory) -> Verdict:
    if not trajectory.steps:
        return Verdict(NO_STEP, None, "the log ends before the agent's first step")
    known = ending_verdict(trajectory)
    if known is not None:
        return known
    log = trajectory.log
    if log is not None and log.stop:
        return Verdict(STOP_VERDICTS[log.stop], trajectory.steps[-1].index, STOP_WORDS[log.stop], log.stop_line)
    last = last_reply(trajectory)
    refused = refused_before(trajectory, last)
    if refused is not None:
        return refused
    answered = bool(log and log.steps and log.steps[last.index - 1].said_after_calls)
    return message_verdict(last, answered)


def refused_before(trajectory: NTrajectory, last: NStep) -> Verdict | None:
    """A last reply with no words and no call, after a step whose every call the human refused: the
    session stopped at the human's no (an empty turn is no message to read)."""
    if (last.text or "").strip() or last.actions or last.index < 2:
        return None
    before = trajectory.steps[last.index - 2]
    if before.observations and not any(o.executed for o in before.observations):
        return Verdict(ABORTED, before.index, "the human refused its last call and it said nothing after",
                       first_line(before.observations[-1].output))
    return None


def last_reply(trajectory: NTrajectory) -> NStep:
    """The last step the model itself wrote (not a notice the harness wrote in its place)."""
    for step in reversed(trajectory.steps):
        if not written_by_harness(trajectory.log, step.index):
            return step
    return trajectory.steps[-1]


def handed_back(trajectory: NTrajectory, index: int) -> bool:
    """The step's words ended a turn the human saw: a human spoke next, or it is the session's last."""
    if index == trajectory.length:
        return True
    log = trajectory.log
    return bool(log and log.steps and log.steps[index - 1].human_after)
