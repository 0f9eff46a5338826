"""Who the reviewer UI lets decide on an action: a reviewer holding one of the action's
approver roles (its tool's policy), not only `refund_approver`; the run's validator
checks the same roles again."""

from __future__ import annotations

from approvals_ui.lookups import no_role_message
from signoff.service.reviewer_access import SignedInReviewer
from tests.store.test_tool_effects import voucher_action


def reviewer(*roles: str) -> SignedInReviewer:
    return SignedInReviewer(id="erin", tenant_id="demo", display_name="Erin", roles=roles)


def test_a_tool_approved_by_another_role_is_decided_by_that_role_only() -> None:
    lead_only = voucher_action().model_copy(update={"approver_roles": ["support_lead"]})
    assert reviewer("support_lead").may_decide(lead_only)
    assert not reviewer("refund_approver").may_decide(lead_only)
    assert no_role_message(lead_only) == (
        "You do not have the support_lead role, so you cannot decide on issue_voucher."
    )


def test_an_action_the_page_cannot_find_needs_the_refund_role() -> None:
    assert reviewer("refund_approver").may_decide(None)
    assert not reviewer("support_lead").may_decide(None)
    assert no_role_message(None).endswith("so you cannot decide on refunds.")
