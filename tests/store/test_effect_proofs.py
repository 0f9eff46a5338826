"""The effect demands its proof (activities/store/effect_proofs.py): the `execute_refund`
activity refunds only for a command its own run sent, whose action hashes to itself,
carrying approvals a front end signed for that exact action, accepted by the run and
spent on no other effect. Every refusal refunds nothing and leaves a `refused` audit row
that says why; the proofs of a refund are spent on it, and a retry finds them so."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from sqlalchemy import Engine, select, update

from activities.refunds import RefundActivities
from activities.store.database import use_session, write_transaction
from activities.store.refunds import list_refunds
from activities.store.schema import DecisionNonce, DecisionRow
from signoff.config.decision_signatures import VerificationKeys
from tests.store.proofs import (
    PROOF_KEYS,
    PROOF_SIGNER,
    RUN_ID,
    as_run,
    proven_action,
    proven_command,
    signed_approval,
)
from tests.workflow.approvals import signed, signed_by_an_impostor
from workflows.action_edits import edited_action
from workflows.actions import Decision, PendingAction, RefundCommand, RefundResult
from workflows.approval_policy import recomputed_hash


async def executed(store: Engine, command: RefundCommand, caller: str = RUN_ID) -> RefundResult:
    return await as_run(caller).run(RefundActivities(store, PROOF_KEYS).execute_refund, command)


def refused_rows(store: Engine) -> list[DecisionRow]:
    with use_session(store) as session:
        return list(session.scalars(select(DecisionRow).where(DecisionRow.kind == "refused")))


def nothing_refunded(store: Engine) -> bool:
    return list_refunds(store, "demo", "C-2210") == []


async def test_a_proven_refund_is_made_once_and_spends_its_proof(store: Engine) -> None:
    action = proven_action(store, 2000)
    proof = signed_approval(store, action, "alice")
    command = proven_command(action, [proof])

    first = await executed(store, command)
    again = await executed(store, command)  # a retried activity

    assert first.status == "refunded" and again.refund_id == first.refund_id
    assert len(list_refunds(store, "demo", "C-2210")) == 1
    with use_session(store) as session:
        spent = session.get(DecisionNonce, proof.nonce)
        assert spent is not None and spent.effect_key == command.idempotency_key
    assert refused_rows(store) == []


def names_without_proofs(store: Engine) -> RefundCommand:
    action = proven_action(store, 2000)
    return proven_command(action, []).model_copy(update={"approvers": ["alice", "bob"]})


def forged(store: Engine) -> RefundCommand:
    action = proven_action(store, 2000)
    wrong = signed_by_an_impostor(signed_approval(store, action, "alice"), RUN_ID)
    return proven_command(action, [wrong])


def for_another_action(store: Engine) -> RefundCommand:
    action = proven_action(store, 2000)
    other = proven_action(store, 2000, call_id="call-other")
    return proven_command(action, [signed_approval(store, other, "alice")])


def altered_amount(store: Engine) -> RefundCommand:
    action = proven_action(store, 1000)
    proof = signed_approval(store, action, "alice")
    # The action's amount raised after the approval, its hash kept.
    raised = action.model_copy(update={"arguments": {**action.arguments, "amount": "45.00"}})
    return proven_command(action, [proof]).model_copy(
        update={"action": raised, "amount_minor": 4500}
    )


def another_key(store: Engine) -> RefundCommand:
    action = proven_action(store, 2000)
    command = proven_command(action, [signed_approval(store, action, "alice")])
    return command.model_copy(update={"idempotency_key": f"{RUN_ID}:refund:second-try"})


def held_by_another_run(store: Engine) -> RefundCommand:
    """A nonce another run holds: only a forgery could carry one."""
    action = proven_action(store, 2000)
    proof = signed_approval(store, action, "alice")
    with write_transaction(store) as session:
        claim = session.get(DecisionNonce, proof.nonce)
        assert claim is not None
        claim.run_id = "run-demo-other"
    return proven_command(action, [proof])


def spent_elsewhere(store: Engine) -> RefundCommand:
    action = proven_action(store, 2000)
    proof = signed_approval(store, action, "alice")
    with write_transaction(store) as session:
        session.execute(
            update(DecisionNonce)
            .where(DecisionNonce.nonce == proof.nonce)
            .values(effect_key="run-demo-other:refund:" + "e" * 64)
        )
    return proven_command(action, [proof])


def signed_after_expiry(store: Engine) -> RefundCommand:
    action = proven_action(store, 2000)
    late = action.expires_at + timedelta(hours=1)
    return proven_command(action, [signed_approval(store, action, "alice", issued_at=late)])


def never_accepted_with_its_expiry_moved(store: Engine) -> RefundCommand:
    """An approval signed after the action expired, which the run's validator refused
    (no update of the run claimed its nonce), carried by a command whose action's expiry
    was moved past it: the expiry is not in the action's hash, so the hash still holds
    and the signature's time is inside the moved expiry. Only the run's acceptance,
    which no caller can write, tells the effect that it never counted."""
    action = proven_action(store, 2000)
    late = action.expires_at + timedelta(hours=1)
    unsigned = Decision(
        action_hash=action.action_hash,
        verdict="approve",
        reviewer_id="alice",
        reviewer_roles=["refund_approver"],
        tenant_id="demo",
    )
    proof = signed(unsigned, RUN_ID, PROOF_SIGNER, late)  # its nonce claimed by no update
    moved = action.model_copy(update={"expires_at": late + timedelta(days=1)})
    assert recomputed_hash(moved, RUN_ID) == moved.action_hash  # not bound by the hash
    return proven_command(moved, [proof])


def approvers_not_the_signers(store: Engine) -> RefundCommand:
    action = proven_action(store, 2000)
    command = proven_command(action, [signed_approval(store, action, "alice")])
    return command.model_copy(update={"approvers": ["bob"]})


def edited_down(store: Engine) -> tuple[PendingAction, PendingAction]:
    """An action of 20.00 and the action a reviewer's edit to 10.00 makes of it."""
    original = proven_action(store, 2000).model_copy(update={"editable": ["amount"]})
    edited = edited_action(original, {"amount": "10.00"}, editor="alice", run_id=RUN_ID)
    return original, edited


def original_approval_for_the_edit(store: Engine) -> RefundCommand:
    original, edited = edited_down(store)
    return proven_command(edited, [signed_approval(store, original, "alice")])


ATTACKS: dict[str, tuple[Any, str]] = {
    "the original's approval for its edit": (
        original_approval_for_the_edit,
        "not an approval of this action",
    ),
    "names and no proof": (names_without_proofs, "carries no signed approval"),
    "a forged signature": (forged, "was not signed by a signoff front end"),
    "a proof for another action": (for_another_action, "not an approval of this action"),
    "an action altered after approval": (altered_amount, "does not hash to its own hash"),
    "another idempotency key": (another_key, "does not match the action"),
    "a proof whose nonce another run holds": (held_by_another_run, "never accepted by this run"),
    "a proof spent on another effect": (spent_elsewhere, "already spent on another effect"),
    "approvers who did not sign": (approvers_not_the_signers, "not the ones who signed"),
    "an approval signed after expiry": (signed_after_expiry, "signed after the action expired"),
    "an approval the run never accepted, its expiry moved": (
        never_accepted_with_its_expiry_moved,
        "never accepted by this run",
    ),
}


@pytest.mark.parametrize("attack", list(ATTACKS))
async def test_a_command_without_its_proof_is_refused_and_recorded(
    store: Engine, attack: str
) -> None:
    build, why = ATTACKS[attack]
    command = build(store)

    result = await executed(store, command)

    assert result.status == "refused" and why in result.message, result.message
    assert "Nothing was refunded" in result.message
    assert nothing_refunded(store)
    (row,) = refused_rows(store)
    assert (row.run_id, row.action_hash) == (command.run_id, command.action_hash)
    assert why in row.reason and f"workflow '{RUN_ID}'" in row.reason


async def test_an_edited_action_refunds_on_an_approval_of_its_own_hash(store: Engine) -> None:
    original, edited = edited_down(store)
    command = proven_command(edited, [signed_approval(store, edited, "alice")])

    result = await executed(store, command)

    assert edited.action_hash != original.action_hash
    assert result.status == "refunded", result.message
    (row,) = list_refunds(store, "demo", "C-2210")
    assert (row.amount_minor, row.action_hash) == (1000, edited.action_hash)


async def test_an_approval_signed_with_a_retired_key_is_refused(store: Engine) -> None:
    """Retiring a key (`signoff keys retire`) withdraws what it signed, even a proof
    already on its way to the effect."""
    action = proven_action(store, 2000)
    command = proven_command(action, [signed_approval(store, action, "alice")])
    retired = VerificationKeys(keys={}, retired=frozenset({PROOF_SIGNER.key_id}))

    result = await as_run(RUN_ID).run(RefundActivities(store, retired).execute_refund, command)

    assert result.status == "refused" and "was retired" in result.message, result.message
    assert nothing_refunded(store)


async def test_another_workflow_cannot_carry_out_a_runs_action(store: Engine) -> None:
    """Even with the run's own valid proofs (read from its history), a rogue workflow
    is not the run: refused, and the proofs stay unspent for the run itself."""
    action = proven_action(store, 2000)
    command = proven_command(action, [signed_approval(store, action, "alice")])

    stolen = await executed(store, command, caller="rogue-workflow")
    own = await executed(store, command)

    assert stolen.status == "refused" and "only the run itself" in stolen.message
    (row,) = refused_rows(store)
    assert "rogue-workflow" in row.reason
    assert own.status == "refunded"


async def test_four_eyes_needs_two_signed_approvals(store: Engine) -> None:
    """T-3107's order is above the review threshold: one proof is too few, whatever the
    approvers the command names; two reviewers' proofs refund."""
    action = proven_action(store, 31_000, ticket_id="T-3107")
    alice = signed_approval(store, action, "alice")
    one = proven_command(action, [alice], ticket_id="T-3107")
    claimed_two = one.model_copy(update={"approvers": ["alice", "bob"]})

    alone = await executed(store, one)
    claimed = await executed(store, claimed_two)
    both = await executed(
        store,
        proven_command(action, [alice, signed_approval(store, action, "bob")], ticket_id="T-3107"),
    )

    assert alone.status == "approver_invalid" and "Too few approvals" in alone.message
    assert claimed.status == "refused" and "not the ones who signed" in claimed.message
    assert both.status == "refunded"
