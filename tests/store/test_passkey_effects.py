"""The passkey step-up at the effect (activities/store/passkey_proofs.py): above the
policy's amount, an approval with a valid Ed25519 signature is not enough. The
`execute_refund` activity, called directly as any workflow could call it, refunds only
when each approval carries its reviewer's passkey signature over that very decision,
made with a key registered through the decision service. Every refusal refunds nothing
and leaves a `refused` audit row that says why."""

from __future__ import annotations

from typing import Any

import pytest
from sqlalchemy import Engine, select

from activities.refunds import RefundActivities
from activities.store.account_schema import Passkey
from activities.store.database import use_session, write_transaction
from activities.store.passkey_proofs import PasskeyCheck
from activities.store.refunds import list_refunds
from activities.store.schema import DecisionRow
from signoff.config.decision_signatures import DecisionSigner
from signoff.config.passkey_challenge import decision_challenge
from signoff.config.passkey_policy import PasskeyPolicy
from tests.passkey_authenticator import RELYING_PARTY, SoftAuthenticator
from tests.store.proofs import (
    PROOF_KEYS,
    PROOF_SIGNER,
    RUN_ID,
    as_run,
    proven_action,
    proven_command,
    signed_approval,
)
from workflows.actions import Decision, PendingAction, RefundCommand, RefundResult

# Refunds above 10.00 need the approver's passkey.
STEP_UP = PasskeyCheck(PasskeyPolicy(tool_above_minor={"refund": 1000}), RELYING_PARTY)


async def executed(store: Engine, command: RefundCommand) -> RefundResult:
    activities = RefundActivities(store, PROOF_KEYS, STEP_UP)
    return await as_run(RUN_ID).run(activities.execute_refund, command)


def refused_reasons(store: Engine) -> list[str]:
    with use_session(store) as session:
        rows = session.scalars(select(DecisionRow).where(DecisionRow.kind == "refused"))
        return [row.reason for row in rows]


def nothing_refunded(store: Engine) -> bool:
    return list_refunds(store, "demo", "C-2210") == []


def with_passkey(proof: Decision, authenticator: SoftAuthenticator) -> Decision:
    """`proof` with its reviewer's passkey signature over its own challenge."""
    passkey = authenticator.assertion(decision_challenge(proof, RUN_ID))
    return proof.model_copy(update={"passkey": passkey})


def alice_with_passkey(store: Engine) -> SoftAuthenticator:
    authenticator = SoftAuthenticator()
    authenticator.register(store, "alice", PROOF_SIGNER)
    return authenticator


def approved(store: Engine, amount_minor: int = 2000) -> tuple[PendingAction, Decision]:
    action = proven_action(store, amount_minor)
    return action, signed_approval(store, action, "alice")


async def test_above_the_amount_an_approval_with_its_passkey_refunds(store: Engine) -> None:
    authenticator = alice_with_passkey(store)
    action, proof = approved(store)

    result = await executed(store, proven_command(action, [with_passkey(proof, authenticator)]))

    assert result.status == "refunded", result.message
    assert refused_reasons(store) == []


async def test_at_the_amount_no_passkey_is_needed(store: Engine) -> None:
    action, proof = approved(store, 1000)

    result = await executed(store, proven_command(action, [proof]))

    assert result.status == "refunded", result.message


def signed_without_passkey(store: Engine) -> RefundCommand:
    """What the server, the operator or a rogue workflow can make: a valid Ed25519
    proof, accepted by the run, but no passkey."""
    alice_with_passkey(store)
    action, proof = approved(store)
    return proven_command(action, [proof])


def passkey_of_another_decision(store: Engine) -> RefundCommand:
    """A replayed assertion: alice's passkey signature over another decision of hers."""
    authenticator = alice_with_passkey(store)
    _, earlier = approved(store)
    action, proof = approved(store)
    replayed = with_passkey(earlier, authenticator).passkey
    return proven_command(action, [proof.model_copy(update={"passkey": replayed})])


def someone_elses_passkey(store: Engine) -> RefundCommand:
    mallory = SoftAuthenticator()
    mallory.register(store, "bob", PROOF_SIGNER)
    action, proof = approved(store)
    return proven_command(action, [with_passkey(proof, mallory)])


def passkey_written_into_the_store(store: Engine) -> RefundCommand:
    """A DBA's own key added to alice's passkeys by hand: no decision service signed its
    registration (signed here by a key the deployment does not know)."""
    dba = SoftAuthenticator()
    dba.register(store, "alice", DecisionSigner.generate())
    action, proof = approved(store)
    return proven_command(action, [with_passkey(proof, dba)])


def public_key_swapped_in_the_store(store: Engine) -> RefundCommand:
    """alice's registered row, its public key replaced with the DBA's."""
    alice_with_passkey(store)
    dba = SoftAuthenticator()
    with write_transaction(store) as session:
        row = session.scalars(select(Passkey).where(Passkey.reviewer_id == "alice")).one()
        row.public_key = dba.public_key
        dba.credential_id = row.credential_id
    action, proof = approved(store)
    return proven_command(action, [with_passkey(proof, dba)])


ATTACKS: dict[str, tuple[Any, str]] = {
    "a signed approval without passkey": (signed_without_passkey, "carries no passkey"),
    "a replayed assertion": (passkey_of_another_decision, "challenge"),
    "another reviewer's passkey": (someone_elses_passkey, "not registered to them"),
    "a passkey written into the store": (passkey_written_into_the_store, "not registered through"),
    "a public key swapped in the store": (
        public_key_swapped_in_the_store,
        "not registered through",
    ),
}


@pytest.mark.parametrize("attack", list(ATTACKS))
async def test_above_the_amount_an_approval_without_its_passkey_is_refused(
    store: Engine, attack: str
) -> None:
    build, why = ATTACKS[attack]
    command = build(store)

    result = await executed(store, command)

    assert result.status == "refused" and why in result.message, result.message
    assert nothing_refunded(store)
    (reason,) = refused_reasons(store)
    assert why in reason


async def test_an_assertion_without_user_verification_is_refused(store: Engine) -> None:
    authenticator = alice_with_passkey(store)
    action, proof = approved(store)
    unverified = authenticator.assertion(decision_challenge(proof, RUN_ID), user_verified=False)

    command = proven_command(action, [proof.model_copy(update={"passkey": unverified})])
    result = await executed(store, command)

    assert result.status == "refused" and "verif" in result.message, result.message
    assert nothing_refunded(store)


def test_any_tools_effect_demands_the_passkey_too(seeded_engine: Engine) -> None:
    """A voucher (a tool without an `amount`) under the tenant's step-up: an approval
    without passkey is refused and on the record; with alice's passkey it is claimed."""
    from activities.store.effect_proofs import ProofCheck
    from activities.store.tool_effects import claim_effect
    from tests.store.test_tool_effects import NEEDS_ONE, command, voucher_action

    tenant_wide = PasskeyCheck(PasskeyPolicy(tenant_above_minor={"demo": 0}), RELYING_PARTY)
    check = ProofCheck(PROOF_KEYS, RUN_ID, tenant_wide)
    authenticator = alice_with_passkey(seeded_engine)
    action = voucher_action()
    proof = signed_approval(seeded_engine, action, "alice")

    without = claim_effect(seeded_engine, command(action, [proof]), check, NEEDS_ONE)
    with_it = claim_effect(
        seeded_engine, command(action, [with_passkey(proof, authenticator)]), check, NEEDS_ONE
    )

    assert without.status == "refused" and "carries no passkey" in without.message
    (reason,) = refused_reasons(seeded_engine)
    assert reason.endswith(without.message)
    assert with_it.status == "go", with_it.message
