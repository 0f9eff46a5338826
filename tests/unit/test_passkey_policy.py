"""The passkey step-up's two pure parts: the challenge is the hash of the exact decision
(signoff/config/passkey_challenge.py), and the threshold says which approvals need a
passkey, per tool and per tenant, the stricter winning (signoff/config/passkey_policy.py)."""

from __future__ import annotations

import hashlib
from datetime import timedelta
from decimal import Decimal

import pytest

from signoff.config.passkey_challenge import decision_challenge
from signoff.config.passkey_policy import PasskeyPolicy
from signoff.config.passkeys import verify_assertion
from signoff.config.profiles import load_profiles
from signoff.config.settings import Settings
from tests.clock import clock_now
from tests.passkey_authenticator import RELYING_PARTY, SoftAuthenticator
from tests.workflow.approvals import TEST_SIGNER, signed
from workflows.actions import ActionState, Decision, PendingAction
from workflows.decision_proof import canonical_bytes
from workflows.exposure import ActionExposure
from workflows.profile_contracts import ProfileSet

RUN_ID = "run-demo-passkey"
NOW = clock_now()


def a_decision(**changes: object) -> Decision:
    decision = Decision(
        action_hash="a" * 64,
        verdict="approve",
        reviewer_id="alice",
        reviewer_roles=["refund_approver"],
        tenant_id="demo",
        reason="ok",
    )
    return signed(decision.model_copy(update=changes), RUN_ID, TEST_SIGNER, NOW)


def test_the_challenge_is_the_sha256_of_the_signed_document() -> None:
    decision = a_decision()
    expected = hashlib.sha256(canonical_bytes(decision.signed_document(RUN_ID))).digest()
    assert decision_challenge(decision, RUN_ID) == expected


@pytest.mark.parametrize(
    "change",
    [
        {"verdict": "reject"},
        {"action_hash": "b" * 64},
        {"reviewer_id": "bob"},
        {"tenant_id": "other"},
        {"reason": "something else"},
        {"nonce": "0" * 32},
        {"issued_at": NOW + timedelta(seconds=1)},
    ],
)
def test_any_change_to_the_decision_changes_its_challenge(change: dict[str, object]) -> None:
    decision = a_decision()
    changed = decision.model_copy(update=change)
    assert decision_challenge(changed, RUN_ID) != decision_challenge(decision, RUN_ID)
    assert decision_challenge(decision, "run-demo-other") != decision_challenge(decision, RUN_ID)


def test_an_assertion_holds_for_its_own_decision_only() -> None:
    authenticator = SoftAuthenticator()
    decision, other = a_decision(), a_decision(reason="another")
    assertion = authenticator.assertion(decision_challenge(decision, RUN_ID))
    key = authenticator.public_key

    mine = verify_assertion(assertion, decision_challenge(decision, RUN_ID), key, RELYING_PARTY)
    theirs = verify_assertion(assertion, decision_challenge(other, RUN_ID), key, RELYING_PARTY)

    assert mine.problem is None and mine.sign_count == 1
    assert theirs.problem is not None and "challenge" in theirs.problem


def test_an_assertion_needs_user_verification_the_origin_and_a_newer_count() -> None:
    authenticator = SoftAuthenticator()
    challenge = decision_challenge(a_decision(), RUN_ID)
    key = authenticator.public_key
    unverified = authenticator.assertion(challenge, user_verified=False)
    elsewhere = authenticator.assertion(challenge, origin="http://evil.example")
    counted = authenticator.assertion(challenge)

    assert "verif" in (verify_assertion(unverified, challenge, key, RELYING_PARTY).problem or "")
    assert "origin" in (verify_assertion(elsewhere, challenge, key, RELYING_PARTY).problem or "")
    replay = verify_assertion(counted, challenge, key, RELYING_PARTY, authenticator.sign_count)
    assert "sign count" in (replay.problem or "")


def refund(amount: str, tenant: str = "demo") -> PendingAction:
    return PendingAction(
        action_hash="a" * 64,
        tool_use_id="call-1",
        tool="refund",
        arguments={"amount": amount, "currency": "EUR"},
        targets={"tenant_id": tenant, "order_id": "O-1"},
        reason="leaks",
        policy_version="test",
        state=ActionState(order_id="O-1", currency="EUR", review_threshold_minor=20000),
        state_hash="b" * 64,
        mode="confirm",
        required_approvals=1,
        requested_at=NOW,
        expires_at=NOW + timedelta(hours=1),
        # As the refund's hooks declare it (workflows/refund_hooks.py).
        exposure=ActionExposure(
            amount=amount, currency="EUR", order_id="O-1", amount_argument="amount"
        ),
    )


def with_refund_policy(passkey_above: str | None) -> ProfileSet:
    profiles = load_profiles(Settings(profiles=None)).profiles
    agent = profiles.agent()
    policy = agent.policy("refund").model_copy(
        update={"passkey_above": None if passkey_above is None else Decimal(passkey_above)}
    )
    changed = agent.model_copy(update={"tool_policy": {**agent.tool_policy, "refund": policy}})
    return profiles.model_copy(update={"agents": {profiles.default_agent: changed}})


def test_above_the_tools_amount_an_approval_needs_a_passkey_and_at_it_none() -> None:
    policy = PasskeyPolicy.of(with_refund_policy("500.00"), {})

    assert policy.threshold_minor("refund", "demo") == 50000
    assert policy.needs_passkey(refund("500.01"))
    assert not policy.needs_passkey(refund("500.00"))
    assert not policy.needs_passkey(refund("900.00"), "reject")  # a rejection does nothing


def test_the_tenants_amount_applies_to_its_tenant_only_and_the_lower_wins() -> None:
    policy = PasskeyPolicy.of(with_refund_policy("500.00"), {"demo": Decimal("100.00")})

    assert policy.needs_passkey(refund("150.00", "demo"))
    assert not policy.needs_passkey(refund("150.00", "acme"))
    assert policy.needs_passkey(refund("600.00", "acme"))


def test_no_threshold_no_passkey_and_an_action_without_amount_always_needs_one() -> None:
    assert not PasskeyPolicy.of(with_refund_policy(None), {}).needs_passkey(refund("1000000.00"))
    tenant_wide = PasskeyPolicy.of(None, {"demo": Decimal("0.00")})
    no_amount = refund("1.00").model_copy(
        update={"tool": "send_reply", "arguments": {"text": "hi"}}
    )
    assert tenant_wide.needs_passkey(no_amount)


def test_the_amount_measured_is_the_exposure_never_an_argument_named_amount() -> None:
    tenant_wide = PasskeyPolicy.of(None, {"demo": Decimal("100.00")})
    # An MCP tool's string named `amount`, below the threshold, declares no exposure:
    # it cannot be measured, so it needs the passkey (fail closed).
    voucher = refund("1.00").model_copy(
        update={"tool": "shop__issue_voucher", "arguments": {"amount": '"1.00"'}, "exposure": None}
    )
    assert tenant_wide.needs_passkey(voucher)
    # A tool whose policy declares its money is measured by it, whatever it is called.
    declared = ActionExposure(amount="15.00", currency="EUR", amount_argument="value")
    gift = voucher.model_copy(
        update={"tool": "issue_voucher", "arguments": {"value": "15.00"}, "exposure": declared}
    )
    assert not tenant_wide.needs_passkey(gift)
    assert tenant_wide.needs_passkey(
        gift.model_copy(update={"exposure": declared.with_amount("100.01")})
    )
