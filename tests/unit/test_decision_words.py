"""The words a reviewer reads: time left on a request, and why an ended run refuses."""

from __future__ import annotations

from datetime import timedelta

import pytest

from signoff.service.pending import ended_run_message, time_left
from tests.clock import clock_now
from workflows.actions import DecisionKind, DecisionRecord
from workflows.contracts import ModelRef, RunState, Usage

NOW = clock_now()
HASH, OTHER = "ab" * 32, "cd" * 32


def ended(*records: DecisionRecord) -> RunState:
    return RunState(
        run_id="run-demo-1",
        tenant_id="demo",
        ticket_id="T-1042",
        status="completed",
        turns_used=2,
        usage=Usage(input_tokens=1, output_tokens=1),
        step_budget=8,
        token_budget=1000,
        deadline=NOW + timedelta(days=1),
        model=ModelRef(provider="scripted", model_id="demo"),
        tool_calls=[],
        events=[],
        decisions=list(records),
    )


def record(kind: DecisionKind, reviewer: str | None = None, ago: int = 10) -> DecisionRecord:
    return DecisionRecord(
        action_hash=HASH, kind=kind, reviewer_id=reviewer, at=NOW - timedelta(minutes=ago)
    )


@pytest.mark.parametrize(
    ("records", "words"),
    [
        ((), "This run has ended; it no longer takes decisions."),
        (
            (record("expired", ago=3),),
            "Expired 3 minutes ago; it did not happen. The run has ended.",
        ),
        (
            (record("rejected", "bob"),),
            "This request was already rejected by bob; the run has ended.",
        ),
        (
            (record("approved", "alice"), record("approved", "bob")),
            "This request was already approved by bob; the run has ended.",
        ),
        (
            (record("approved", "alice"), record("voided")),
            "This request's approval went void (the order changed); the run has ended.",
        ),
        (
            (record("edited", "alice"),),
            "This request was edited by alice into a new version; the run has ended.",
        ),
        (
            (record("cancelled"),),
            "This run ended before this request was decided (cancelled); the refund did not "
            "happen.",
        ),
    ],
)
def test_an_ended_run_says_what_became_of_the_request(
    records: tuple[DecisionRecord, ...], words: str
) -> None:
    assert ended_run_message(ended(*records), HASH, NOW) == words


def test_an_ended_run_ignores_other_requests_and_an_unanswered_query() -> None:
    other = record("rejected", "bob").model_copy(update={"action_hash": OTHER})
    assert ended_run_message(ended(other), HASH, NOW) == (
        "This run has ended; it no longer takes decisions."
    )
    assert ended_run_message(None, HASH, NOW) == (
        "This run has ended; it no longer takes decisions."
    )


@pytest.mark.parametrize(
    ("offset", "words"),
    [
        (timedelta(hours=3, minutes=12, seconds=5), "3 h 12 min left"),
        (timedelta(minutes=12, seconds=5), "12 min left"),
        (timedelta(seconds=40), "40 s left"),
        (timedelta(0), "expired moments ago"),
        (-timedelta(minutes=3, seconds=2), "expired 3 min ago"),
    ],
)
def test_time_left(offset: timedelta, words: str) -> None:
    assert time_left(NOW + offset, NOW) == words
