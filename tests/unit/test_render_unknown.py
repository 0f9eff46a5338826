"""`signoff status` names an action whose outcome is unknown, and how to settle it."""

from __future__ import annotations

from signoff.cli.render import outcome_lines
from workflows.contracts import ModelRef, RunOutcome, Usage
from workflows.unknown_effects import UnknownEffect


def test_the_outcome_names_unknown_actions_and_the_command_to_settle_them() -> None:
    effect = UnknownEffect(
        action_hash="a" * 64,
        tool="refund",
        idempotency_key=f"run-demo-1:refund:{'a' * 64}",
        order_id="C-1042",
        amount="10.00",
        currency="EUR",
        description="refund 10.00 EUR on order C-1042",
    )
    outcome = RunOutcome(
        run_id="run-demo-1",
        status="completed",
        reason="answered",
        turns_used=2,
        usage=Usage(),
        tool_calls=[],
        effects_unknown=[effect],
        model=ModelRef(provider="scripted", model_id="demo"),
        scripted=True,
    )
    lines = outcome_lines(outcome)
    assert "effects:  none" in lines
    assert (
        "unknown:  refund 10.00 EUR on order C-1042 "
        "(check with `signoff reconcile run-demo-1`)" in lines
    )
