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


def test_payloads_open_for_a_decider_or_an_administrator_only() -> None:
    assert reviewer("refund_approver").may_read_payloads()
    assert reviewer("admin").may_read_payloads()
    assert not reviewer("support_lead").may_read_payloads()


def test_a_sealed_payload_opens_for_its_own_tenant_and_a_tenantless_one_for_an_admin() -> None:
    decider, admin = reviewer("refund_approver"), reviewer("admin")
    assert decider.may_open_payload_of("demo")
    assert not decider.may_open_payload_of("globex")
    assert not admin.may_open_payload_of("globex")  # an administrator of demo is of demo
    assert admin.may_open_payload_of(None)
    assert not decider.may_open_payload_of(None)
