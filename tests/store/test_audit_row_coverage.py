"""The proof covers the whole row (audit_actions.py): a reviewer's decision row keeps the
action its signed decision names and shows that action's order and amount, whatever the
run's record said; `unproven_decisions` (what `audit verify` runs) recomputes the
action's hash and names a row that shows other values. The attack is the one a signature
alone let through: a row appended at the chain's head with a valid hash and alice's real
signed decision, copied from another row, but claiming 310.00 EUR on order C-3107."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Engine, select

from activities.refunds import RefundActivities
from activities.store.audit_actions import (
    BEFORE_ACTIONS,
    NOT_KEPT,
    REVIEWER_KINDS,
    shown_problems,
)
from activities.store.audit_proofs import unproven_decisions
from activities.store.database import use_session, write_transaction
from activities.store.decision_chain import verify_chain
from activities.store.decisions import NewEvent, append_decision, append_event, event_key
from activities.store.schema import DecisionRow
from activities.store.tool_effects import claim_effect
from activities.store.waiting_actions import hold_waiting
from tests.store.proofs import (
    PROOF_KEYS,
    RUN_ID,
    as_run,
    proven_action,
    proven_command,
    signed_approval,
    signed_decision,
)
from tests.store.test_audit_proofs import KEYS
from tests.store.test_tool_effects import CHECK, NEEDS_ONE, command, voucher_action
from workflows.actions import ActionHold, Decision, DecisionEvent, DecisionRecord, PendingAction
from workflows.approval_policy import recomputed_hash
from workflows.exposure import ActionExposure

# What the forged row claims (the attack).
CLAIMED = {"order_id": "C-3107", "amount_minor": 31000, "currency": "EUR"}


def trail_event(
    action: PendingAction, proof: Decision, sequence: int = 0, **record: Any
) -> DecisionEvent:
    """The run's record of `proof`, as its trail recorder sends it (`record`: what the
    run's record says of the order and amount, which the row does not take)."""
    approved = proof.verdict == "approve"
    return DecisionEvent(
        run_id=RUN_ID,
        tenant_id="demo",
        ticket_id="T-2210",
        sequence=sequence,
        record=DecisionRecord(
            action_hash=action.action_hash,
            kind="approved" if approved else "rejected",
            reviewer_id=proof.reviewer_id,
            at=proof.issued_at,
            **record,
        ),
        approval_number=1 if approved else None,
        approvals_required=1 if approved else None,
        proof=proof,
    )


def decision_rows(store: Engine) -> list[DecisionRow]:
    with use_session(store) as session:
        return list(
            session.scalars(
                select(DecisionRow)
                .where(DecisionRow.kind.in_(REVIEWER_KINDS))
                .order_by(DecisionRow.seq)
            )
        )


def forge_head(store: Engine, genuine: DecisionRow, **changes: Any) -> int:
    """A row appended at the head with a valid chain hash, the genuine row's proof (and,
    unless `changes` says otherwise, its kept action), showing `changes`."""
    fields: dict[str, Any] = {
        "event_key": event_key("forged", genuine.seq, changes),
        "tenant_id": genuine.tenant_id,
        "kind": genuine.kind,
        "run_id": genuine.run_id,
        "ticket_id": genuine.ticket_id,
        "action_hash": genuine.action_hash,
        "decided_at": datetime.now(UTC),
        "reviewer_id": genuine.reviewer_id,
        "proof": genuine.proof,
        "action": genuine.action,
        "order_id": genuine.order_id,
        "amount_minor": genuine.amount_minor,
        "currency": genuine.currency,
        **changes,
    }
    with write_transaction(store) as session:
        return append_event(session, NewEvent(**fields)).seq


def unproven(store: Engine) -> dict[int, str]:
    return {row.seq: row.why for row in unproven_decisions(store, KEYS).unproven}


async def test_a_refund_approval_shows_its_action_and_a_forged_amount_is_named(
    store: Engine,
) -> None:
    action = proven_action(store, 2000)  # 20.00 EUR on order C-2210
    proof = signed_approval(store, action, "alice")
    # The run's record names other values: the row takes the signed action's.
    said = {"order_id": "C-3107", "amount": "310.00", "currency": "EUR"}
    sent = proven_command(action, [proof]).model_copy(
        update={"trail": [trail_event(action, proof, **said)]}
    )
    effect = RefundActivities(store, PROOF_KEYS).execute_refund
    assert (await as_run().run(effect, sent)).status == "refunded"
    [genuine] = decision_rows(store)
    assert (genuine.order_id, genuine.amount_minor, genuine.currency) == ("C-2210", 2000, "EUR")
    assert genuine.action is not None
    assert unproven_decisions(store, KEYS).unproven == []

    forged = forge_head(store, genuine, **CLAIMED)

    assert verify_chain(store).intact  # the chain cannot see it
    report = unproven_decisions(store, KEYS)
    assert report.checked == 2 and report.not_covered == []
    assert unproven(store) == {
        forged: "it shows 310.00 EUR on order C-3107; its signed action is 20.00 EUR on "
        "order C-2210"
    }
    problems = shown_problems(store, decision_rows(store))
    assert set(problems) == {row.id for row in decision_rows(store) if row.seq == forged}


async def test_a_forged_row_that_drops_or_rewrites_the_action_is_named(store: Engine) -> None:
    action = proven_action(store, 2000)
    proof = signed_approval(store, action, "alice")
    sent = proven_command(action, [proof]).model_copy(
        update={"trail": [trail_event(action, proof)]}
    )
    await as_run().run(RefundActivities(store, PROOF_KEYS).execute_refund, sent)
    [genuine] = decision_rows(store)
    # The action altered to say what the row says: it no longer hashes to the signed hash.
    assert action.exposure is not None
    claimed = action.exposure.model_copy(update={"amount": "310.00", "order_id": "C-3107"})
    rewritten = action.model_copy(update={"exposure": claimed}).model_dump_json()
    altered = forge_head(store, genuine, action=rewritten, **CLAIMED)
    dropped = forge_head(store, genuine, action=None, **CLAIMED)

    assert unproven(store) == {
        altered: "the action it keeps does not hash to the action its decision names",
        dropped: NOT_KEPT,
    }


def test_a_tool_without_exposure_shows_no_amount_and_a_claimed_one_is_named(
    store: Engine,
) -> None:
    """send_reply, rejected while it waits: the run's `record_decision` writes the row,
    and the action comes from the inbox's row of it."""
    reply = voucher_action().model_copy(
        update={"tool": "send_reply", "arguments": {"text": "Your refund is on its way."}}
    )
    reply = reply.model_copy(update={"action_hash": recomputed_hash(reply, RUN_ID)})
    hold_waiting(
        store,
        ActionHold(run_id=RUN_ID, tenant_id="demo", ticket_id="T-2210", action=reply),
        reply.requested_at,
    )
    proof = signed_decision(store, RUN_ID, reply.action_hash, "bob", "reject")
    # A record that read an argument as money (as records did): not what the row shows.
    append_decision(store, trail_event(reply, proof, amount="15.00", currency="EUR"))
    [genuine] = decision_rows(store)
    assert genuine.action is not None
    assert (genuine.order_id, genuine.amount_minor, genuine.currency) == (None, None, None)
    assert unproven(store) == {}

    forged = forge_head(store, genuine, **CLAIMED)

    assert unproven(store) == {
        forged: "it shows 310.00 EUR on order C-3107; its signed action is no amount"
    }


def test_a_tool_whose_policy_declares_money_shows_its_exposure(seeded_engine: Engine) -> None:
    """issue_voucher with a declared exposure, approved through its effect's claim."""
    voucher = voucher_action("25")
    exposure = ActionExposure(amount="25.00", currency="EUR", amount_argument="value")
    voucher = voucher.model_copy(update={"exposure": exposure})
    voucher = voucher.model_copy(update={"action_hash": recomputed_hash(voucher, RUN_ID)})
    proof = signed_approval(seeded_engine, voucher, "alice")
    sent = command(voucher, [proof]).model_copy(update={"trail": [trail_event(voucher, proof)]})
    assert claim_effect(seeded_engine, sent, CHECK, NEEDS_ONE).status == "go"
    [genuine] = decision_rows(seeded_engine)
    assert (genuine.order_id, genuine.amount_minor, genuine.currency) == (None, 2500, "EUR")
    assert unproven(seeded_engine) == {}
    forged = forge_head(seeded_engine, genuine, amount_minor=250000)
    assert unproven(seeded_engine) == {
        forged: "it shows 2500.00 EUR; its signed action is 25.00 EUR"
    }


def test_rows_from_before_actions_were_kept_are_not_covered_not_failed(store: Engine) -> None:
    """Rows that keep no action count apart until a row of the chain keeps one; after
    that, a row without its action fails."""
    legacy = signed_decision(store, RUN_ID, "ab" * 32, "alice", "approve")
    for sequence in (0, 1):
        append_decision(
            store,
            DecisionEvent(
                run_id=RUN_ID,
                tenant_id="demo",
                ticket_id="T-2210",
                sequence=sequence,
                record=DecisionRecord(
                    action_hash="ab" * 32,
                    kind="approved",
                    reviewer_id="alice",
                    at=datetime.now(UTC),
                    order_id="C-2210",
                    amount="20.00",
                    currency="EUR",
                ),
                proof=legacy,
            ),
        )
    report = unproven_decisions(store, KEYS)
    assert report.unproven == []
    assert [(row.seq, row.why) for row in report.not_covered] == [
        (1, BEFORE_ACTIONS),
        (2, BEFORE_ACTIONS),
    ]
    assert shown_problems(store, decision_rows(store)) == {}

    reply = voucher_action().model_copy(update={"tool": "send_reply"})
    reply = reply.model_copy(update={"action_hash": recomputed_hash(reply, RUN_ID)})
    hold_waiting(
        store,
        ActionHold(run_id=RUN_ID, tenant_id="demo", ticket_id="T-2210", action=reply),
        reply.requested_at,
    )
    proof = signed_decision(store, RUN_ID, reply.action_hash, "bob", "reject")
    append_decision(store, trail_event(reply, proof, sequence=2))
    genuine = decision_rows(store)[-1]
    forged = forge_head(store, genuine, action=None, **CLAIMED)

    report = unproven_decisions(store, KEYS)
    assert [row.seq for row in report.not_covered] == [1, 2]
    assert unproven(store) == {forged: NOT_KEPT}
