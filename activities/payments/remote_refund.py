"""A refund through a payment platform: the store's proofs around the platform's money.

The steps (see activities/store/remote_refunds.py for the store's side):
admit (proofs, the key's own row, settlement, the ticket's order and its payment) →
read the payment and its refunds once → find the refund by key among them (an earlier
attempt may have made it) → judge the approval on the same read (state hash, remaining
refundable) → claim (approvers, spend the proofs) → create under the key → record. Three
calls to the platform with Stripe: the payment, its refunds, the refund
(tests/payments/test_stripe_calls.py counts them).

The remaining refundable is checked here too, although Stripe checks it: a server that
does not (localstripe) must not refund beyond what was paid. The platform's own
refusals, rate limits and silences propagate as `connector.py` says; the activity
(activities/refunds.py) turns them into a result, a retry or an unknown outcome.
"""

from __future__ import annotations

from sqlalchemy import Engine

from activities.payments.connector import PaymentFacts, PaymentRefused, PaymentsConnector
from activities.store import remote_refunds
from activities.store.database import use_session
from activities.store.effect_proofs import ProofCheck
from activities.store.ledger_reads import order_of_ticket, review_threshold
from activities.store.payment_links import payment_ref_of
from activities.store.refunds import (
    NOTHING_REFUNDED,
    LedgerAnswer,
    refused,
    rule_violation,
)
from activities.store.schema import KEY_LENGTH
from workflows.actions import ActionState, RefundCommand, RefundResult
from workflows.approval_policy import money, state_hash
from workflows.effect_requirements import Requirements, judged_threshold


def read_remote_state(
    engine: Engine,
    connector: PaymentsConnector,
    tenant_id: str,
    ticket_id: str,
    needs: Requirements | None = None,
) -> ActionState:
    """The state a refund on the ticket's order is judged on, from the platform; `needs`
    as for the ledger's (`judged_threshold`). Raises UnknownTenant, NoPaymentLink,
    PaymentError."""
    with use_session(engine) as session:
        connection = session.connection()
        threshold = judged_threshold(review_threshold(connection, tenant_id), needs)
        order = order_of_ticket(connection, tenant_id, ticket_id)
        if order is None:
            return ActionState(order_id=None, currency=None, review_threshold_minor=threshold)
        payment_ref = payment_ref_of(session, tenant_id, order.id, connector.name)
    return state_of(order.id, connector.payment(payment_ref), threshold)


def state_of(order_id: str, facts: PaymentFacts, review_threshold_minor: int) -> ActionState:
    return ActionState(
        order_id=order_id,
        currency=facts.currency,
        paid_minor=facts.paid_minor,
        refunded_minor=facts.refunded_minor,
        order_status=facts.status,
        review_threshold_minor=review_threshold_minor,
    )


def answer_remote_refund(
    engine: Engine, connector: PaymentsConnector, command: RefundCommand, check: ProofCheck
) -> LedgerAnswer:
    """Refund once through the platform, or say why not (see the module note). Raises
    PaymentUnavailable and PaymentOutcomeUnknown for the activity to act on."""
    if len(command.idempotency_key) > KEY_LENGTH:
        return LedgerAnswer(refused(f"The idempotency key is longer than {KEY_LENGTH}."))
    admitted = remote_refunds.admit(engine, command, check, connector.name)
    if isinstance(admitted, LedgerAnswer):
        return admitted
    try:
        facts = connector.payment(admitted.payment_ref)
    except PaymentRefused as refusal:
        return _refused_after(engine, command, check, str(refusal))
    # One read serves both: the refunds it lists hold any that an earlier attempt made
    # under the key, and are those the remaining refundable is judged on.
    found = facts.refund_under(command.idempotency_key)
    if found is not None:  # an earlier attempt made it, and died before recording
        return remote_refunds.record(engine, command, found.refund_id, found.created_at)
    state = state_of(command.order_id, facts, admitted.review_threshold_minor)
    if state_hash(state) != command.expected_state_hash:
        return LedgerAnswer(
            RefundResult(status="state_changed", message=_changed(facts, state), state=state)
        )
    violation = rule_violation(command, state)
    if violation is not None:
        return _refused_after(engine, command, check, violation)
    answer = remote_refunds.claim(engine, command, state, check)
    if answer is not None:
        return LedgerAnswer(answer)
    try:
        created = connector.create_refund(
            facts, command.amount_minor, command.currency, command.idempotency_key
        )
    except PaymentRefused as refusal:
        return _refused_after(engine, command, check, f"{refusal} {NOTHING_REFUNDED}")
    return remote_refunds.record(engine, command, created.refund_id, created.created_at)


def _refused_after(
    engine: Engine, command: RefundCommand, check: ProofCheck, why: str
) -> LedgerAnswer:
    remote_refunds.record_refusal(engine, command, why, check.caller_run_id)
    return LedgerAnswer(refused(why))


def _changed(facts: PaymentFacts, state: ActionState) -> str:
    latest = facts.refunds[-1] if facts.refunds else None
    made = (
        f" (the latest refund on it is {latest.refund_id} of {money(latest.amount_minor)} "
        f"{latest.currency}, made {latest.created_at:%Y-%m-%d %H:%M} UTC)"
        if latest is not None
        else ""
    )
    return (
        f"Order {state.order_id} changed on its payment platform since the refund was "
        f"approved{made}; the approval is void. Now {money(state.refunded_minor)} of "
        f"{money(state.paid_minor)} {state.currency} is refunded and the payment is "
        f"{state.order_status}. {NOTHING_REFUNDED}"
    )
