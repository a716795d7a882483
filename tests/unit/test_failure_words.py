"""What an ending error's words mean (dialects/failures.py), read alike by the runtime, the
annotator's session logs and Inspect's logs: wordings as the providers, the transports and the
agents print them, and the agents' own stops that mention a model without its endpoint failing."""

from __future__ import annotations

import pytest

from impasse.dialects.failures import Failure, failure_of, is_connection

WORDINGS = [
    ("prompt is too long: 212345 tokens > 200000 maximum", Failure.CONTEXT),  # Anthropic
    ("This model's maximum context length is 128000 tokens.", Failure.CONTEXT),  # OpenAI
    ("Error code: 400 - {'error': {'code': 'context_length_exceeded'}}", Failure.CONTEXT),
    ("You exceeded your current quota, please check your plan and billing details.", Failure.LIMIT),
    ("Claude AI usage limit reached|1764892800", Failure.LIMIT),
    ("429 Too Many Requests: retry after 20s", Failure.ENDPOINT),  # a rate limit: the endpoint, for now
    ("exceeded retry limit, last status: 429 Too Many Requests, request id: 25f7", Failure.ENDPOINT),
    ("Rate limit reached for gpt-4o in organization org-x on tokens per min", Failure.ENDPOINT),
    ("You've hit your usage limit. Upgrade to Pro or try again at 4:12 PM.", Failure.LIMIT),
    ("Error code: 529 - {'type': 'error', 'error': {'type': 'overloaded_error'}}", Failure.ENDPOINT),
    ("API Error: Connection error.", Failure.ENDPOINT),
    ("stream disconnected before completion: error sending request", Failure.ENDPOINT),
    ("TypeError: fetch failed", Failure.ENDPOINT),
    ("connect ECONNREFUSED 127.0.0.1:4000", Failure.ENDPOINT),
    ("Request failed with status code 502", Failure.ENDPOINT),
    ("401 Unauthorized: invalid api key", Failure.ENDPOINT),
    ("[API Error: model not found: gemini-9-pro]", Failure.ENDPOINT),
    ("A potential loop was detected. This can happen due to repetitive tool calls or other model behavior.",
     Failure.OTHER),
    ("Reached max session turns for this session.", Failure.OTHER),
    ("Sandbox error: exec of /bin/sh failed", Failure.OTHER),
    ("The model chose to stop after 12 turns", Failure.OTHER),
]


@pytest.mark.parametrize(("words", "kind"), WORDINGS, ids=[w[:40] for w, _ in WORDINGS])
def test_an_ending_errors_words_are_read_as_their_kind(words, kind):
    assert failure_of(words) is kind


def test_only_a_transports_words_are_a_connection_that_failed():
    assert is_connection("connect ECONNREFUSED 127.0.0.1:4000") and is_connection("socket hang up")
    assert not is_connection("Error code: 529 overloaded_error")
    assert not is_connection("A potential loop was detected.")
