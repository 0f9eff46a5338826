"""The run envelope refuses, in words, a thinking budget that cannot fit."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from pydantic import ValidationError

from workflows.contracts import ModelRef, RunRequest


def run_request(**changes: Any) -> RunRequest:
    values: dict[str, Any] = {
        "tenant_id": "demo",
        "actor_id": "ops",
        "request_id": "r1",
        "trace_id": "t1",
        "goal": "Answer the ticket.",
        "ticket_id": "T-1042",
        "policy_version": "p1",
        "model": ModelRef(provider="anthropic", model_id="claude-sonnet-4-6"),
        "deadline": datetime.now(UTC) + timedelta(hours=1),
    }
    return RunRequest(**{**values, **changes})


def test_a_thinking_budget_must_fit_below_max_tokens() -> None:
    assert run_request().thinking_budget_tokens is None
    fits = run_request(thinking_budget_tokens=2048, max_tokens=4096)
    assert fits.thinking_budget_tokens == 2048
    with pytest.raises(ValidationError) as too_big:
        run_request(thinking_budget_tokens=2048)  # max_tokens stays 1024
    assert "must be below max_tokens (1024): raise SIGNOFF_MAX_TOKENS" in str(too_big.value)
    with pytest.raises(ValidationError) as too_small:
        run_request(thinking_budget_tokens=512, max_tokens=4096)
    assert "greater than or equal to 1024" in str(too_small.value)
