"""`signoff status` shows each model turn's tokens by kind and its cost."""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal

from signoff.cli.render import outcome_lines, state_lines
from workflows.contracts import ModelRef, RunOutcome, RunState, TurnUsage, Usage

CLAUDE = ModelRef(provider="anthropic", model_id="claude-sonnet-4-6")
TURNS = [
    TurnUsage(
        turn=1,
        usage=Usage(input_tokens=1011, output_tokens=115, cache_creation_input_tokens=2900),
        cost_usd=Decimal("0.015633"),
    ),
    TurnUsage(
        turn=2,
        usage=Usage(input_tokens=40, output_tokens=60, cache_read_input_tokens=2900),
        cost_usd=Decimal("0.00189"),
    ),
]
EXPECTED = [
    "usage:    turn 1  in 1011, out 115, cache write 2900, cache read 0  (0.015633 USD)",
    "          turn 2  in 40, out 60, cache write 0, cache read 2900  (0.00189 USD)",
]


def test_the_outcome_lists_usage_per_turn() -> None:
    outcome = RunOutcome(
        run_id="run-demo-1",
        status="completed",
        reason="answered",
        turns_used=2,
        usage=TURNS[0].usage + TURNS[1].usage,
        tool_calls=[],
        cost_usd=Decimal("0.017523"),
        turn_usage=TURNS,
        model=CLAUDE,
        scripted=False,
    )
    lines = outcome_lines(outcome)
    start = lines.index(EXPECTED[0])
    assert lines[start : start + 2] == EXPECTED


def test_the_live_state_lists_cost_and_usage_per_turn() -> None:
    state = RunState(
        run_id="run-demo-1",
        tenant_id="demo",
        ticket_id="T-4512",
        status="running",
        turns_used=2,
        usage=TURNS[0].usage + TURNS[1].usage,
        step_budget=8,
        token_budget=200_000,
        deadline=datetime(2026, 12, 1, tzinfo=UTC),
        model=CLAUDE,
        tool_calls=[],
        events=[],
        cost_usd=Decimal("0.017523"),
        turn_usage=TURNS,
    )
    lines = state_lines(state)
    assert "cost:     0.017523 USD" in lines
    start = lines.index(EXPECTED[0])
    assert lines[start : start + 2] == EXPECTED
