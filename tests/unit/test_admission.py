"""Which of a matrix's runs may still start: the circuit breaker per model and the spend cap."""

from __future__ import annotations

from impasse.runs.admission import Admission
from impasse.vocabulary import Outcome

TRANSPORT = Outcome.TRANSPORT_ERROR


def test_the_breaker_opens_after_k_transport_errors_in_a_row_for_that_model_only():
    admission = Admission(breaker_after=3)
    for _ in range(2):
        admission.record("openai:a", TRANSPORT, 0.0)
    assert admission.hold_reason("openai:a") is None
    admission.record("openai:a", TRANSPORT, 0.0)
    assert "3 transport errors in a row" in admission.hold_reason("openai:a")
    assert admission.hold_reason("openai:b") is None


def test_a_measured_run_closes_the_streak():
    admission = Admission(breaker_after=2)
    admission.record("m", TRANSPORT, 0.0)
    admission.record("m", Outcome.ESCALATED, 0.0)
    admission.record("m", TRANSPORT, 0.0)
    assert admission.hold_reason("m") is None


def test_a_harness_failure_neither_opens_nor_closes_the_streak():
    admission = Admission(breaker_after=2)
    admission.record("m", TRANSPORT, 0.0)
    admission.record("m", None, None)  # the run failed in the harness: says nothing of the endpoint
    admission.record("m", TRANSPORT, 0.0)
    assert admission.hold_reason("m") is not None


def test_the_spend_cap_holds_every_model_once_reached():
    admission = Admission(spend_cap=1.0)
    admission.record("a", Outcome.ESCALATED, 0.6)
    assert admission.hold_reason("b") is None
    admission.record("a", Outcome.BUDGET_EXHAUSTED, 0.5)
    assert "spend cap was reached ($1.1000 of $1.0000)" in admission.hold_reason("b")


def test_an_unknown_cost_stops_a_capped_matrix_but_not_an_uncapped_one():
    capped, free = Admission(spend_cap=10.0), Admission()
    for admission in (capped, free):
        admission.record("a", Outcome.ESCALATED, None)
    assert "cost is unknown" in capped.hold_reason("a")
    assert free.hold_reason("a") is None
