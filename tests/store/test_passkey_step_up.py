"""The decision service's step-up (signoff/service/passkey_step_up.py): where the policy
asks for a passkey it signs nothing without one, verifies the assertion against the
reviewer's stored key and counts its use, so a replayed assertion is refused before
any decision is made."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import Engine

from activities.store.passkeys import passkeys_of
from signoff.config.passkey_challenge import decision_challenge
from signoff.service.decisions import Decider, draft_decision, signed_decision
from signoff.service.handles import Store
from signoff.service.passkey_step_up import (
    NEEDS_PASSKEY,
    PasskeyAnswer,
    PasskeyRefused,
    PasskeyRequired,
    StepUp,
)
from tests.passkey_authenticator import RELYING_PARTY, SoftAuthenticator
from tests.store.proofs import PROOF_SIGNER, RUN_ID

ALICE = Decider("alice", "demo", ("refund_approver",))
HASH = "c" * 64


def answered(authenticator: SoftAuthenticator, now: datetime) -> PasskeyAnswer:
    """The page's round trip: the draft's challenge signed by the reviewer's passkey."""
    draft = draft_decision(PROOF_SIGNER, RUN_ID, ALICE, HASH, "approve", "fine", now)
    assert draft.issued_at is not None and draft.nonce is not None
    assertion = authenticator.assertion(decision_challenge(draft, RUN_ID))
    return PasskeyAnswer(draft.issued_at, draft.nonce, assertion)


def stepped_up(store: Engine, answer: PasskeyAnswer | None) -> StepUp:
    return StepUp(required=True, answer=answer, store=Store(store), relying_party=RELYING_PARTY)


def test_a_required_passkey_signs_the_decision_and_counts_the_use(store: Engine) -> None:
    authenticator = SoftAuthenticator()
    authenticator.register(store, "alice", PROOF_SIGNER)
    now = datetime.now(UTC)
    answer = answered(authenticator, now)

    decision = signed_decision(
        PROOF_SIGNER, RUN_ID, ALICE, HASH, "approve", "fine", now, step_up=stepped_up(store, answer)
    )

    assert decision.passkey == answer.assertion and decision.signature is not None
    assert decision.nonce == answer.nonce and decision.issued_at == answer.issued_at
    assert [p.sign_count for p in passkeys_of(store, "alice")] == [1]


def test_without_a_passkey_nothing_is_signed(store: Engine) -> None:
    now = datetime.now(UTC)
    with pytest.raises(PasskeyRequired) as refused:
        signed_decision(
            PROOF_SIGNER, RUN_ID, ALICE, HASH, "approve", "", now, step_up=stepped_up(store, None)
        )
    assert "this decision needs a passkey: decide it in the reviewer UI" in refused.value.message
    assert refused.value.message == NEEDS_PASSKEY


def test_a_replayed_assertion_is_refused(store: Engine) -> None:
    authenticator = SoftAuthenticator()
    authenticator.register(store, "alice", PROOF_SIGNER)
    now = datetime.now(UTC)
    answer = answered(authenticator, now)
    step_up = stepped_up(store, answer)
    signed_decision(PROOF_SIGNER, RUN_ID, ALICE, HASH, "approve", "fine", now, step_up=step_up)

    with pytest.raises(PasskeyRefused) as refused:
        signed_decision(PROOF_SIGNER, RUN_ID, ALICE, HASH, "approve", "fine", now, step_up=step_up)

    assert "sign count" in refused.value.message


def test_an_assertion_for_another_decision_or_too_old_is_refused(store: Engine) -> None:
    authenticator = SoftAuthenticator()
    authenticator.register(store, "alice", PROOF_SIGNER)
    now = datetime.now(UTC)
    answer = answered(authenticator, now)

    with pytest.raises(PasskeyRefused) as other_reason:
        signed_decision(
            PROOF_SIGNER,
            RUN_ID,
            ALICE,
            HASH,
            "approve",
            "changed",
            now,
            step_up=stepped_up(store, answer),
        )
    later = now + timedelta(hours=1)
    with pytest.raises(PasskeyRefused) as stale:
        signed_decision(
            PROOF_SIGNER,
            RUN_ID,
            ALICE,
            HASH,
            "approve",
            "fine",
            later,
            step_up=stepped_up(store, answer),
        )

    assert "challenge" in other_reason.value.message
    assert "too old" in stale.value.message
