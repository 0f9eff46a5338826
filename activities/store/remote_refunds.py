"""The store's side of a refund that a payment platform makes (activities/payments/).

Design note. The money moves on the platform, so it cannot be in our transaction; the
proofs still are, where they always were (`effect_proofs.py`). Three short
transactions, each locking the order row as a ledger refund does:

1. `admit`: the command proves itself (or a `refused` audit event says why), and the
   store's own refusals come first: a key already recorded is answered from its row, a
   key `signoff reconcile` settled as not refunded can no longer refund, the order must
   be the ticket's own and linked to a payment;
2. `claim`, after the platform's facts were read and judged: the approvers must still
   count (or, for an action a standing rule approved, the rule's grant must hold on the
   platform's figures, `rule_grants.py`), the proofs (or the rule's use) are spent on
   this key and the action's hold released, committed BEFORE the platform is asked; a
   retry of the same command finds its own spending;
3. `record`, after the platform answered: a mirror row in `refunds` under the same key
   (its id is the platform's refund id) and the `executed` audit event; or the refusal.

A crash between 2 and 3 leaves spent proofs and no row: the next attempt (or `signoff
reconcile`) finds the refund by key on the platform before anything else, and records it.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

from sqlalchemy import Engine, select
from sqlalchemy.orm import Session

from activities.store.approvers import why_approvals_do_not_count
from activities.store.database import write_transaction
from activities.store.decisions import append_executed, append_refused_effect
from activities.store.effect_proofs import ProofCheck, proof_refusal
from activities.store.ledger_reads import order_of_ticket, review_threshold
from activities.store.payment_links import payment_ref_of
from activities.store.pending_refunds import release_in
from activities.store.refunds import (
    NOTHING_REFUNDED,
    REFUND_ISOLATION_LEVEL,
    LedgerAnswer,
    refund_by_key,
    refund_denied,
    refund_row,
    refused,
    replay_answer,
)
from activities.store.rule_grants import refund_grant_refusal, spend_approvals
from activities.store.schema import DecisionNonce, RefundSettlement
from workflows.actions import ActionState, RefundCommand, RefundResult
from workflows.approval_policy import money
from workflows.effect_requirements import judged_threshold


@dataclass(frozen=True)
class Admitted:
    """A command the store lets through to the platform: its payment there, and the
    tenant's review threshold (part of the state the approval was judged on)."""

    payment_ref: str
    review_threshold_minor: int


def admit(
    engine: Engine, command: RefundCommand, check: ProofCheck, provider: str
) -> Admitted | LedgerAnswer:
    """Step 1 of the module note: an answer, or what to ask the platform about."""
    with write_transaction(engine, REFUND_ISOLATION_LEVEL) as session:
        connection = session.connection()
        threshold = review_threshold(connection, command.tenant_id)
        order = order_of_ticket(connection, command.tenant_id, command.ticket_id, locked=True)
        refusal = proof_refusal(session, command, check.keys, check.caller_run_id, check.passkeys)
        if refusal is None and check.approvals is not None and check.approvals.refusal:
            refusal = refund_denied(check.approvals.refusal)
        if refusal is not None:
            append_refused_effect(session, command, refusal, check.caller_run_id)
            return LedgerAnswer(refused(refusal))
        stored = refund_by_key(session, command.idempotency_key)
        if stored is not None:
            return replay_answer(stored, command)
        settled = _settled_not_refunded(session, command.idempotency_key)
        if settled is not None:
            return LedgerAnswer(refused(settled))
        if order is None or order.id != command.order_id:
            return LedgerAnswer(
                refused(
                    f"Order {command.order_id} is not the order of ticket {command.ticket_id}; "
                    f"a refund can only target the ticket's own order. {NOTHING_REFUNDED}"
                )
            )
        payment_ref = payment_ref_of(session, command.tenant_id, order.id, provider)
        return Admitted(payment_ref, judged_threshold(threshold, check.approvals))


def claim(
    engine: Engine, command: RefundCommand, state: ActionState, check: ProofCheck
) -> RefundResult | None:
    """Step 2: None when the refund may go to the platform (proofs spent, hold released,
    committed); else the answer. `state` is the platform's, read just before: the
    approvers' count, or the standing rule's terms, are judged on its refunded total."""
    with write_transaction(engine, REFUND_ISOLATION_LEVEL) as session:
        order_of_ticket(session.connection(), command.tenant_id, command.ticket_id, locked=True)
        settled = _settled_not_refunded(session, command.idempotency_key)
        if settled is not None:
            return refused(settled)
        if command.action.rule_grant is not None:  # the rule stands in for approvals
            void = refund_grant_refusal(session, command, check, state, datetime.now(UTC))
            if void is not None:
                append_refused_effect(session, command, void, check.caller_run_id)
                return RefundResult(status="approver_invalid", message=void, state=state)
        else:
            not_counted = why_approvals_do_not_count(session, command, state, check.approvals)
            if not_counted is not None:
                return RefundResult(status="approver_invalid", message=not_counted, state=state)
        # Each approval, or the rule's use, authorizes this refund alone.
        spend_approvals(session, command, datetime.now(UTC))
        release_in(session, command.run_id, command.action_hash)
    return None


def record(
    engine: Engine, command: RefundCommand, refund_id: str, created_at: datetime
) -> LedgerAnswer:
    """Step 3: the platform's refund, mirrored under the key with its audit event. A row
    already there (another attempt recorded it) is answered as a replay."""
    with write_transaction(engine, REFUND_ISOLATION_LEVEL) as session:
        order_of_ticket(session.connection(), command.tenant_id, command.ticket_id, locked=True)
        stored = refund_by_key(session, command.idempotency_key)
        if stored is not None:
            return replay_answer(stored, command)
        spend_approvals(session, command, created_at)  # spent in step 2 unless it crashed
        release_in(session, command.run_id, command.action_hash)
        session.add(refund_row(command, refund_id, created_at))
        session.flush()
        append_executed(session, command, refund_id)
    return LedgerAnswer(
        RefundResult(
            status="refunded",
            refund_id=refund_id,
            message=(
                f"Refunded {money(command.amount_minor)} {command.currency} on order "
                f"{command.order_id} (refund {refund_id})."
            ),
        )
    )


def record_refusal(engine: Engine, command: RefundCommand, why: str, caller_run_id: str) -> None:
    """The platform refused after the claim: on the record, with its words."""
    with write_transaction(engine) as session:
        append_refused_effect(session, command, why, caller_run_id)


def approvers_of_key(session: Session, idempotency_key: str) -> list[str]:
    """The reviewers whose approvals were spent on this key: who authorized it."""
    rows = session.scalars(
        select(DecisionNonce.reviewer_id)
        .where(DecisionNonce.effect_key == idempotency_key)
        .order_by(DecisionNonce.reviewer_id)
    )
    return list(dict.fromkeys(rows))


def _settled_not_refunded(session: Session, idempotency_key: str) -> str | None:
    settled = session.get(RefundSettlement, idempotency_key)
    if settled is None or settled.outcome == "refunded":
        return None
    return (
        "This refund was settled as not made by `signoff reconcile`; its key can no "
        f"longer refund. {NOTHING_REFUNDED}"
    )
