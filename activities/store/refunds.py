"""The refund ledger: what a refund decision is judged on, and the one place money moves.

Design note. `execute_refund` is one write transaction that serializes with every other
refund of the same order: on SQLite it opens with `BEGIN IMMEDIATE` (see
`database.py`), on PostgreSQL it locks the order row with `SELECT ... FOR UPDATE`
first. Only then does it read the idempotency key, the totals and the state hash, so a
concurrent refund has either committed (and is seen) or not started. The steps:

0. through the activity (`answer_refund` with a check), the command must prove itself: its
   action, its signed approvals, its caller (`effect_proofs.py`), and the worker's own
   profiles must let the refund run at all (no agent denies it), or it is refused
   with a `refused` audit event and nothing else is written; a command that proves
   itself writes the run's decision records it carries (its approvals) here, so that
   they commit with the refund (`effect_trail.py`);
1. a ledger row with the same idempotency key: the same arguments get the stored
   result (a retried activity), other arguments are refused;
   a key that `signoff reconcile` settled as not refunded is refused;
2. the state the approval was judged on must still be the state of the store
   (`state_hash`; its review threshold is the tenant's, lowered by the worker's
   profiles' `four_eyes_above`), or the approval is void (`state_changed`);
3. every approver must still count, and enough of them (`approvers.py`), or the
   approval is void (`approver_invalid`, with a `refused` audit event that says why);
4. the rule on totals: amount > 0, same currency, refunded + amount <= paid;
5. the ledger row is written with its `executed` audit event (`decisions.py`), the
   action's pending hold deleted, the approvals spent on this refund, and all of it
   committed together.

Isolation. On PostgreSQL the transaction sets READ COMMITTED itself, whatever the
server's default: the order row lock only serializes the refunds, and each statement
after it must read what the refund before it committed. Under REPEATABLE READ the
snapshot is taken at the first statement, before the lock is granted; a locked row
that nobody updated raises no serialization error, so the totals would be read from
before the other refund and both would land (tests/store/test_refund_race.py shows it).
SERIALIZABLE would be correct too, but its losers fail with serialization errors that
need a retry loop; READ COMMITTED with the lock gives each its answer at once.

Refusals are results, not exceptions: they are deterministic, and the workflow tells the
model why. Only an unexpected database failure raises, so that Temporal retries the
activity; the idempotency key makes that retry safe.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, replace
from datetime import UTC, datetime

from sqlalchemy import Connection, Engine, insert, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from activities.store.approvers import why_approvals_do_not_count
from activities.store.database import table_of, use_session, write_transaction
from activities.store.decisions import append_executed, append_refused_effect
from activities.store.effect_proofs import ProofCheck, proof_refusal
from activities.store.effect_trail import recorded_in
from activities.store.ledger_reads import (
    OrderFacts,
    key_settled,
    key_used,
    order_of_ticket,
    refunded_minor,
    review_threshold,
)
from activities.store.pending_refunds import release_in
from activities.store.rule_grants import refund_grant_refusal, spend_approvals
from activities.store.schema import ID_LENGTH, KEY_LENGTH, Refund
from activities.store.text_lists import join_list
from workflows.actions import ActionState, RefundCommand, RefundResult
from workflows.approval_policy import money, state_hash
from workflows.effect_requirements import Requirements, judged_threshold

NOTHING_REFUNDED = "Nothing was refunded."
REFUNDS = table_of(Refund)
NEW_REFUND = insert(REFUNDS)
# See the module note: the order row lock relies on it.
REFUND_ISOLATION_LEVEL = "READ COMMITTED"


def new_refund_id() -> str:
    return "R-" + uuid.uuid4().hex[:10].upper()


def refund_denied(why: str) -> str:
    """The refusal of a refund the worker's profiles do not let run (no agent may)."""
    return f"The refund tool may not run here: {why}. {NOTHING_REFUNDED}"


def refund_row(command: RefundCommand, refund_id: str, created_at: datetime) -> Refund:
    """The ledger's row of the command's refund, made here or on a payment platform
    (its id then the platform's), under our key."""
    return Refund(
        id=refund_id[:ID_LENGTH],
        tenant_id=command.tenant_id,
        order_id=command.order_id,
        amount_minor=command.amount_minor,
        currency=command.currency,
        idempotency_key=command.idempotency_key,
        run_id=command.run_id,
        action_hash=command.action_hash,
        approvers=join_list(command.approvers),
        # RefundCommand carries no reason yet; the action hash points at it.
        reason=command.reason,
        created_at=created_at.astimezone(UTC),
    )


def read_action_state(
    source: Session | Engine, tenant_id: str, ticket_id: str, needs: Requirements | None = None
) -> ActionState:
    """The state a refund on this ticket's order is judged on; `needs`: what the worker's
    profiles demand of a refund (their `four_eyes_above` lowers the threshold). Raises
    UnknownTenant."""
    with use_session(source) as session:
        connection = session.connection()
        threshold = review_threshold(connection, tenant_id)
        order = order_of_ticket(connection, tenant_id, ticket_id)
        return _state(connection, tenant_id, threshold, order, needs)


def list_refunds(source: Session | Engine, tenant_id: str, order_id: str) -> list[Refund]:
    """The ledger rows of one order, oldest first."""
    with use_session(source) as session:
        rows = session.scalars(
            select(Refund)
            .where(Refund.tenant_id == tenant_id, Refund.order_id == order_id)
            .order_by(Refund.created_at, Refund.id)
        )
        return list(rows)


@dataclass(frozen=True)
class LedgerAnswer:
    """The ledger's answer to a refund command, and whether it only found the refund its
    key already made (a retried activity): then nothing was written, and the metrics
    must not count a second refund."""

    result: RefundResult
    replayed: bool = False
    # When each of the command's decision records found in the audit was recorded, read
    # in the refund's own transaction (effect_trail.recorded_in); None: not read there.
    trail_recorded: dict[str, datetime] | None = None

    def with_trail_written(self, written: bool) -> LedgerAnswer:
        """The answer saying whether the command's decision records are in the audit."""
        return replace(self, result=self.result.model_copy(update={"trail_written": written}))


def execute_refund(engine: Engine, command: RefundCommand) -> RefundResult:
    """Refund once, or say why not (see the module note). Raises UnknownTenant."""
    return answer_refund(engine, command).result


def answer_refund(
    engine: Engine, command: RefundCommand, check: ProofCheck | None = None
) -> LedgerAnswer:
    """`execute_refund`, saying whether the refund was made now or found made earlier.
    With `check` (the `execute_refund` activity always gives one) the command proves
    itself first, in the refund's transaction (step 0 of the module note). Without, the
    ledger's rules alone: for this module's own callers and tests, never for a command
    that came through the task queue."""
    if len(command.idempotency_key) > KEY_LENGTH or len(command.run_id) > KEY_LENGTH:
        return LedgerAnswer(
            refused(f"The idempotency key or run id is longer than {KEY_LENGTH} characters.")
        )
    try:
        return _execute(engine, command, check)
    except IntegrityError:
        # Same key, other order: PostgreSQL's row locks are per order, so both
        # transactions may insert; the UNIQUE key lets one commit. Answer as step 1.
        stored = refund_by_key(engine, command.idempotency_key)
        if stored is None:
            raise
        return replay_answer(stored, command)


def _execute(engine: Engine, command: RefundCommand, check: ProofCheck | None) -> LedgerAnswer:
    with write_transaction(engine, REFUND_ISOLATION_LEVEL) as session:
        answer = _answer_in(session, command, check)
        if not command.trail:
            return answer
        # What the command's records became, read before the commit: the activity
        # needs no transaction of its own after it to know (activities/refunds.py).
        return replace(answer, trail_recorded=recorded_in(session.connection(), command.trail))


def _answer_in(session: Session, command: RefundCommand, check: ProofCheck | None) -> LedgerAnswer:
    """The refund's steps in the caller's transaction (see the module note)."""
    connection = session.connection()
    threshold = review_threshold(connection, command.tenant_id)
    order = order_of_ticket(connection, command.tenant_id, command.ticket_id, locked=True)
    terms = (threshold, order)
    if check is not None:
        refusal = proof_refusal(session, command, check.keys, check.caller_run_id, check.passkeys)
        if refusal is not None:
            append_refused_effect(session, command, refusal, check.caller_run_id)
            return LedgerAnswer(refused(refusal))
        if check.approvals is not None and check.approvals.refusal:
            denied = refund_denied(check.approvals.refusal)
            append_refused_effect(session, command, denied, check.caller_run_id)
            return LedgerAnswer(refused(denied))
        if command.action.rule_grant is not None:  # a standing rule: rule_grants.py
            state = _state(connection, command.tenant_id, threshold, order, check.approvals)
            void = refund_grant_refusal(session, command, check, state, datetime.now(UTC))
            if void is not None:
                append_refused_effect(session, command, void, check.caller_run_id)
                result = RefundResult(status="approver_invalid", message=void, state=state)
                return LedgerAnswer(result)
    stored = refund_by_key(session, command.idempotency_key)
    if stored is not None:
        return replay_answer(stored, command)
    requirements = None if check is None else check.approvals
    return LedgerAnswer(
        _decide(session, command, terms, proven=check is not None, needs=requirements)
    )


def _decide(
    session: Session,
    command: RefundCommand,
    terms: tuple[int, OrderFacts | None],
    *,
    proven: bool,
    needs: Requirements | None = None,
) -> RefundResult:
    """Refund in this transaction, or say why not: the key has no refund yet."""
    connection = session.connection()
    threshold, order = terms
    if key_settled(connection, command.idempotency_key):
        # A person was told this refund did not happen (activities/store/settlements.py).
        return refused(
            "This refund was settled as not made by `signoff reconcile`; its key can no "
            f"longer refund. {NOTHING_REFUNDED}"
        )
    if order is None or order.id != command.order_id:
        return refused(
            f"Order {command.order_id} is not the order of ticket {command.ticket_id}; "
            f"a refund can only target the ticket's own order. {NOTHING_REFUNDED}"
        )
    state = _state(connection, command.tenant_id, threshold, order, needs)
    if state_hash(state) != command.expected_state_hash:
        return RefundResult(
            status="state_changed",
            message=_changed_message(session, command.tenant_id, state),
            state=state,
        )
    by_rule = proven and command.action.rule_grant is not None  # checked in step 0
    not_counted = None if by_rule else why_approvals_do_not_count(session, command, state, needs)
    if not_counted is not None:
        if proven:  # the caller is the run: the refusal is on its record, beside the approval
            append_refused_effect(session, command, not_counted, command.run_id)
        return RefundResult(status="approver_invalid", message=not_counted, state=state)
    refusal = rule_violation(command, state)
    if refusal is not None:
        return refused(refusal)
    # The command names the ticket's own order (checked above).
    refund = refund_row(command, new_refund_id(), datetime.now(UTC))
    # A Core INSERT: the ORM's unit of work cost more than the row (docs/benchmarks/runs.md).
    connection.execute(NEW_REFUND, row_values(refund))
    if proven:
        # Each approval, or the standing rule's use (`by_rule`), authorizes this refund alone.
        spend_approvals(session, command, datetime.now(UTC))
    # From pending to refunded in one commit: the amount always counts once.
    release_in(session, command.run_id, command.action_hash)
    append_executed(session, command, refund.id)
    return RefundResult(
        status="refunded",
        refund_id=refund.id,
        message=(
            f"Refunded {money(refund.amount_minor)} {refund.currency} on order "
            f"{refund.order_id} (refund {refund.id})."
        ),
    )


def _state(
    connection: Connection,
    tenant_id: str,
    threshold_minor: int,
    order: OrderFacts | None,
    needs: Requirements | None,
) -> ActionState:
    threshold = judged_threshold(threshold_minor, needs)
    if order is None:
        return ActionState(order_id=None, currency=None, review_threshold_minor=threshold)
    return ActionState(
        order_id=order.id,
        currency=order.currency,
        paid_minor=order.amount_paid_minor,
        refunded_minor=refunded_minor(connection, tenant_id, order.id),
        order_status=order.status,
        review_threshold_minor=threshold,
    )


def row_values(refund: Refund) -> dict[str, object]:
    """A built ledger row's columns, for a Core INSERT (those left unset take their
    column's default, as the ORM's flush gave them)."""
    values = {column.key: getattr(refund, column.key) for column in REFUNDS.c}
    return {key: value for key, value in values.items() if value is not None}


def refund_by_key(source: Session | Engine, idempotency_key: str) -> Refund | None:
    """The ledger row written under this idempotency key, if any: what reconcile reads.
    A Core probe first: most refunds find no row, and loading none still cost the ORM."""
    with use_session(source) as session:
        if not key_used(session.connection(), idempotency_key):
            return None
        return session.scalars(
            select(Refund).where(Refund.idempotency_key == idempotency_key)
        ).one_or_none()


def replay_answer(stored: Refund, command: RefundCommand) -> LedgerAnswer:
    same = (stored.tenant_id, stored.order_id, stored.amount_minor, stored.currency) == (
        command.tenant_id,
        command.order_id,
        command.amount_minor,
        command.currency,
    ) and stored.action_hash == command.action_hash
    if not same:
        # A key names one action; reuse with other arguments is a caller's bug, and
        # answering with the stored refund would hide it.
        return LedgerAnswer(
            refused(
                "The idempotency key was reused with other arguments: it already belongs to "
                f"another refund. {NOTHING_REFUNDED}"
            )
        )
    already = RefundResult(
        status="refunded",
        refund_id=stored.id,
        message=(
            f"Already done: refund {stored.id} of {money(stored.amount_minor)} "
            f"{stored.currency} on order {stored.order_id} was made for this action "
            "earlier; nothing was refunded a second time."
        ),
    )
    return LedgerAnswer(already, replayed=True)


def rule_violation(command: RefundCommand, state: ActionState) -> str | None:
    if command.amount_minor <= 0:
        return f"The amount must be greater than zero. {NOTHING_REFUNDED}"
    if command.currency != state.currency:
        return (
            f"The refund is in {command.currency} but order {state.order_id} was paid in "
            f"{state.currency}. {NOTHING_REFUNDED}"
        )
    if state.refunded_minor + command.amount_minor > state.paid_minor:
        return (
            f"{money(command.amount_minor)} {command.currency} is more than what remains "
            f"refundable on order {state.order_id}: {money(state.refundable_minor)} of "
            f"{money(state.paid_minor)} {state.currency} paid "
            f"({money(state.refunded_minor)} already refunded). {NOTHING_REFUNDED}"
        )
    return None


def _changed_message(session: Session, tenant_id: str, state: ActionState) -> str:
    refunds = list_refunds(session, tenant_id, state.order_id) if state.order_id else []
    latest = (
        f" (the latest refund on it is {refunds[-1].id} of {money(refunds[-1].amount_minor)} "
        f"{refunds[-1].currency}, made {refunds[-1].created_at:%Y-%m-%d %H:%M} UTC)"
        if refunds
        else ""
    )
    return (
        f"Order {state.order_id} changed since the refund was approved{latest}; the "
        f"approval is void. Now {money(state.refunded_minor)} of {money(state.paid_minor)} "
        f"{state.currency} is refunded and the order is {state.order_status}. "
        f"{NOTHING_REFUNDED}"
    )


def refused(message: str) -> RefundResult:
    return RefundResult(status="refused", message=message)
