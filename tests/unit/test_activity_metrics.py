"""The failures an operator alerts on are counted where they happen, in the activities:
a model call that raises (by error type, priced turns by model), a tool that gives the
model an error result, a decision (once, however often its recording is retried).
Each activity runs in Temporal's `ActivityEnvironment`.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from decimal import Decimal

import pytest
from prometheus_client import REGISTRY
from sqlalchemy import Engine
from temporalio.exceptions import ApplicationError
from temporalio.testing import ActivityEnvironment

from activities.decisions import DecisionActivities
from activities.model_turn import ModelTurns
from activities.tool_gateway import ToolGateway
from tests.store.proofs import PROOF_KEYS, as_run, signed_decision
from workflows.actions import DecisionEvent, DecisionRecord
from workflows.contracts import (
    ModelPrice,
    ModelRef,
    ModelReply,
    ModelRequest,
    TextBlock,
    ToolCallInput,
    Usage,
)

CLAUDE = ModelRef(provider="anthropic", model_id="claude-test-1")
PRICE = ModelPrice(input=Decimal("3"), output=Decimal("15"))


class RateLimited:
    async def complete(self, request: ModelRequest) -> ModelReply:
        raise ApplicationError("rate limit", type="ModelRateLimited")


class Answers:
    async def complete(self, request: ModelRequest) -> ModelReply:
        return ModelReply(
            content=[TextBlock(text="hello")],
            stop_reason="end_turn",
            usage=Usage(input_tokens=1_000_000, output_tokens=100_000),
        )


def value(name: str, **labels: str) -> float:
    return REGISTRY.get_sample_value(name, labels) or 0.0


def turns(adapter: object) -> ModelTurns:
    return ModelTurns(
        {"scripted": Answers, "anthropic": lambda: adapter},  # type: ignore[dict-item]
        price_of=lambda model: PRICE,
    )


def model_request() -> ModelRequest:
    return ModelRequest(model=CLAUDE, system="s", messages=[], tools=[], max_tokens=16)


async def test_a_model_error_is_counted_by_type() -> None:
    errors = value("signoff_model_errors_total", model=CLAUDE.label(), error="ModelRateLimited")
    with pytest.raises(ApplicationError):
        await ActivityEnvironment().run(turns(RateLimited()).model_turn, model_request())
    after = value("signoff_model_errors_total", model=CLAUDE.label(), error="ModelRateLimited")
    assert after - errors == 1


async def test_tokens_and_cost_are_counted_by_model() -> None:
    spent = value("signoff_model_cost_usd_total", model=CLAUDE.label())
    tokens = value("signoff_model_tokens_total", model=CLAUDE.label(), kind="output")
    await ActivityEnvironment().run(turns(Answers()).model_turn, model_request())
    # 1M input at 3 USD, 100k output at 15 USD per million.
    assert value("signoff_model_cost_usd_total", model=CLAUDE.label()) - spent == 4.5
    assert value("signoff_model_tokens_total", model=CLAUDE.label(), kind="output") - tokens == (
        100_000
    )


async def test_a_tool_error_result_is_counted(seeded: Engine) -> None:
    before = value("signoff_tool_errors_total", tool="read_ticket")
    call = ToolCallInput(
        run_id="run-demo-1",
        tenant_id="demo",
        ticket_id="T-0000",  # no such ticket: an error result for the model
        tool_use_id="toolu_1",
        name="read_ticket",
        arguments={},
        idempotency_key="run-demo-1:read_ticket",
    )
    result = await ActivityEnvironment().run(ToolGateway(seeded).run_tool, call)
    assert result.is_error
    assert value("signoff_tool_errors_total", tool="read_ticket") - before == 1


async def test_a_decision_is_counted_once_when_its_recording_is_retried(seeded: Engine) -> None:
    at = datetime.now(UTC)
    event = DecisionEvent(
        run_id="run-demo-retried",
        tenant_id="demo",
        ticket_id="T-1042",
        sequence=0,
        record=DecisionRecord(action_hash="ef" * 32, kind="rejected", reviewer_id="alice", at=at),
        mode="confirm",
        requested_at=at - timedelta(minutes=5),
        proof=signed_decision(seeded, "run-demo-retried", "ef" * 32, "alice", "reject"),
    )
    labels = {"verdict": "rejected", "mode": "confirm"}
    before = value("signoff_approvals_total", **labels)
    waits = value("signoff_approval_wait_seconds_sum", **labels)
    record = DecisionActivities(seeded, PROOF_KEYS).record_decision
    first = await as_run(event.run_id).run(record, event)
    again = await as_run(event.run_id).run(record, event)  # a retry finds its row

    assert first == again
    assert value("signoff_approvals_total", **labels) - before == 1
    assert value("signoff_approval_wait_seconds_sum", **labels) - waits == 300
