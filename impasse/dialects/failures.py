"""What an error an agent or its harness recorded at its end means, in one place for every reader
(the runtime's own-stop reading, the annotator's session logs, Inspect's logs): the context window
full, a usage or rate limit spent, the model's endpoint failing (no answer, or the provider's error),
or none of these (the agent or harness stopping for a reason of its own). The class is the kind of
words, never one agent's message."""

from __future__ import annotations

import re
from enum import StrEnum


class Failure(StrEnum):
    CONTEXT = "context"
    LIMIT = "limit"
    ENDPOINT = "endpoint"
    OTHER = "other"


CONTEXT_WORDS = re.compile(r"prompt is too long|context (?:window|length)|ran out of room|too many tokens"
                           r"|maximum context|context_length_exceeded", re.I)
# The account's budget spent (a plan's usage limit, a billing quota), not a rate limit: a 429 that
# retries ran out on is the endpoint refusing for now (LABELING.md: a RateLimitError ends as "other").
LIMIT_WORDS = re.compile(r"(?<!rate )limit reached|usage limit|out of (?:extra )?usage|quota|exhausted your capacity"
                         r"|resets? (?:at |in )?\d", re.I)
# No answer from the endpoint: the transport's own words (node's, curl's, Python's).
CONNECTION_WORDS = re.compile(r"\b(?:API Error|ECONN\w+|ETIMEDOUT|EAI_AGAIN|fetch failed|socket hang up"
                              r"|connection (?:error|refused|reset|aborted|timed out)|network error"
                              r"|stream (?:error|disconnected)|request timed out|APIConnectionError)", re.I)
# The provider answered with an error: its status, its overload, its key or its model refused. Not
# the bare word "model": an agent's own stop speaks of "model behavior" (Qwen Code's loop detector).
PROVIDER_WORDS = re.compile(r"\b(?:overloaded|rate.?limit|too many requests|429|status(?: code)?:? [45]\d\d"
                            r"|HTTP [45]\d\d|internal server error"
                            r"|bad gateway|service unavailable|api ?error|invalid api key|authentication_error"
                            r"|unauthori[sz]ed|model (?:not found|does not exist|is not available))", re.I)


def failure_of(words: str) -> Failure:
    """The kind of an ending error's words (context and limit first: a provider's error often says
    which, and that is the finer answer)."""
    if CONTEXT_WORDS.search(words):
        return Failure.CONTEXT
    if LIMIT_WORDS.search(words):
        return Failure.LIMIT
    if CONNECTION_WORDS.search(words) or PROVIDER_WORDS.search(words):
        return Failure.ENDPOINT
    return Failure.OTHER


def is_connection(words: str) -> bool:
    """Whether the words are of a failed connection to the model (no answer at all)."""
    return bool(CONNECTION_WORDS.search(words))
