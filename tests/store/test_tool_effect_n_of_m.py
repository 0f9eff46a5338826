"""Any irreversible tool's effect demands its policy's chain itself (activities/store/
tool_effects.py): a command whose approvals do not come in the chain's order, or that
lacks a step, claims nothing; the run is told its approval is void (and the audit gets
the `voided` record from the run, not a `refused` one from the effect)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from sqlalchemy import Engine

from activities.store.tool_effects import claim_effect
from tests.store.proofs import signed_approval
from tests.store.test_tool_effects import CHECK, command, refusals, voucher_action
from tests.workflow.team_policies import add_team
from workflows.effect_requirements import Requirement, Requirements, policy_requirement
from workflows.tool_policy import ToolPolicy

CHAIN = ToolPolicy.model_validate(
    {
        "approval": "review",
        "chain": ["support_lead", "finance"],
        "approver_roles": ["refund_approver"],
    }
)


def chain_needs() -> Requirements:
    needed = policy_requirement(CHAIN)
    assert needed == Requirement(
        2, ("refund_approver", "support_lead", "finance"), None, ("support_lead", "finance")
    )
    return Requirements(needed=(needed,))


def test_a_chain_in_order_is_claimed(seeded_engine: Engine) -> None:
    add_team(seeded_engine)
    action, start = voucher_action(), datetime.now(UTC) - timedelta(minutes=5)
    proofs = [
        signed_approval(seeded_engine, action, "frank", issued_at=start),
        signed_approval(seeded_engine, action, "gina", issued_at=start + timedelta(minutes=1)),
    ]
    assert claim_effect(seeded_engine, command(action, proofs), CHECK, chain_needs()).status == "go"


def test_a_chain_out_of_order_or_short_of_a_step_claims_nothing(seeded_engine: Engine) -> None:
    add_team(seeded_engine)
    action = voucher_action()
    swapped = [
        signed_approval(seeded_engine, action, "gina"),
        signed_approval(seeded_engine, action, "frank"),
    ]
    claim = claim_effect(seeded_engine, command(action, swapped), CHECK, chain_needs())
    assert claim.status == "approver_invalid"
    assert "approval 1 is not from a reviewer with the support_lead role" in claim.message
    lead_only = [signed_approval(seeded_engine, voucher_action("20"), "frank")]
    short = claim_effect(
        seeded_engine, command(voucher_action("20"), lead_only), CHECK, chain_needs()
    )
    assert short.status == "approver_invalid"
    assert "needs 2 approval(s) from different reviewers" in short.message
    assert refusals(seeded_engine) == []  # voided approvals, not refused commands
