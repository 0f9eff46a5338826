"""The audit table: every decision event, appended once, chained per tenant.

Design note. `append_event` is the only writer. It runs inside a write transaction
and first takes the tenant's chain lock: on SQLite the transaction is already
`BEGIN IMMEDIATE` (one writer at a time); on PostgreSQL it locks the tenant row with
`FOR NO KEY UPDATE`, which serializes appends of one tenant but, unlike `FOR UPDATE`,
does not conflict with the key-share locks that inserts referencing the tenant take
(a refund transaction inserts its ledger row before it appends). Under the lock it
looks for the event's key: a retried activity finds its own row and writes nothing.
Then it reads the chain's head and inserts the row with the next `seq` and its hash.

Events of a run come from the workflow's decision trail (`append_decision`, through
the `record_decision` activity). The `executed` event comes from `execute_refund`,
in the refund's own transaction: the ledger row and its audit row commit together
or not at all (`append_executed`).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import get_args

from sqlalchemy import Engine, bindparam, insert, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from activities.store.action_money import currency_or_none, minor_or_none
from activities.store.audit_actions import kept_action, shown_values
from activities.store.database import table_of, write_transaction
from activities.store.decision_chain import GENESIS, row_hash
from activities.store.errors import StoreError, UnknownTenant
from activities.store.insight_columns import REFUNDED, insight_values
from activities.store.insight_days import add_row_at_commit
from activities.store.schema import DecisionRow, Tenant, WaitingAction
from activities.store.waiting_actions import FIRST_APPROVAL, follow_decision
from workflows.actions import DecisionEvent, DecisionKind, PendingAction, RefundCommand
from workflows.reject_reasons import labelled

# The audit's table, for the Core statements of `append_event`.
DECISIONS = table_of(DecisionRow)
EXECUTED = "executed"
# The event key's tag of an effect the ledger refused (`append_refused_effect`).
REFUSED_EFFECT = "refused-effect"
# An administrator's change to a reviewer account, and an attempt at one that was
# refused (no credential, a wrong one, not an administrator): account_audit.py.
ACCOUNT_CHANGE = "account"
ACCOUNT_REFUSED = "account_refused"
# Every kind a row can have: the trail's kinds (DecisionKind, where approved is the
# approval that authorizes), a first approval that still waits for another, the executed
# refund, the account events, and the standing rules' own.
AUDIT_KINDS: tuple[str, ...] = (
    *get_args(DecisionKind),
    FIRST_APPROVAL,
    EXECUTED,
    ACCOUNT_CHANGE,
    ACCOUNT_REFUSED,
    # Standing rules (activities/store/standing_rules.py, rule_grants.py): a rule made,
    # revoked, or refused to its would-be maker; an effect that spent one of a rule's
    # uses. (A run's record that a rule approved an action is a DecisionKind.)
    "rule_created",
    "rule_revoked",
    "rule_refused",
    "rule_used",
)
# The fields that say which event a row is: the same key with other ones is a bug.
IDENTITY_FIELDS = ("tenant_id", "kind", "run_id", "action_hash", "reviewer_id", "decided_at")
# `append_event`'s statements, built once with bound parameters: every decision and every
# effect appends, and building and compiling them anew cost more than running them.
TENANTS = table_of(Tenant)
CHAIN_LOCK = (
    select(TENANTS.c.id)
    .where(TENANTS.c.id == bindparam("tenant_id"))
    .with_for_update(key_share=True)
)
KEY_PROBE = select(DECISIONS.c.id, *(DECISIONS.c[name] for name in IDENTITY_FIELDS)).where(
    DECISIONS.c.event_key == bindparam("event_key")
)
CHAIN_HEAD = (
    select(DECISIONS.c.seq, DECISIONS.c.row_hash)
    .where(DECISIONS.c.tenant_id == bindparam("tenant_id"))
    .order_by(DECISIONS.c.seq.desc())
    .limit(1)
)
NEW_ROW = insert(DECISIONS)


class AuditConflict(StoreError):
    def __init__(self, event_key: str) -> None:
        super().__init__(
            f"Audit event {event_key} is already recorded with other contents; the audit "
            "keeps the first. Check the run's decision trail against the audit table."
        )


@dataclass(frozen=True)
class NewEvent:
    """A row to append, before the chain gives it its `seq` and hashes."""

    event_key: str
    tenant_id: str
    kind: str
    run_id: str
    ticket_id: str
    action_hash: str
    decided_at: datetime
    reviewer_id: str | None = None
    reason: str = ""
    order_id: str | None = None
    amount_minor: int | None = None
    currency: str | None = None
    refund_id: str | None = None
    # The signed decision of a reviewer's approval or rejection (JSON), for the audit.
    proof: str | None = None
    # The action that decision names (JSON), whence the row's order and amount
    # (audit_actions.py).
    action: str | None = None
    # The approval insight's columns (insight_columns.py).
    outcome: str | None = None
    tool: str | None = None
    category: str | None = None
    waited_ms: int | None = None
    rule_id: str | None = None


def event_key(*parts: object) -> str:
    return hashlib.sha256(json.dumps(parts, separators=(",", ":")).encode()).hexdigest()


def audit_kind(event: DecisionEvent) -> str:
    """A trail kind as the audit names it: an approval that still waits for another is
    a first approval; any other kind is itself (new kinds need no change here)."""
    number, required = event.approval_number, event.approvals_required
    if event.record.kind == "approved" and number is not None and required is not None:
        return FIRST_APPROVAL if number < required else "approved"
    return event.record.kind


def from_trail(
    event: DecisionEvent, action: PendingAction | None = None, tool: str | None = None
) -> NewEvent:
    """The row of a trail record. With the action a reviewer's record decided (found by
    `audit_actions.kept_action`), the row keeps it and shows its order and amount, not
    the record's. `tool`: the waiting action's, for a row that keeps no action."""
    record = event.record
    kind = audit_kind(event)
    amount_minor = minor_or_none(record.amount)
    order_id = record.order_id
    # Money only where the record's amount is money (module note of action_money.py):
    # an audit row that cannot be written is a run that cannot go on.
    currency = None if amount_minor is None else currency_or_none(record.currency)
    if action is not None:
        order_id, amount_minor, currency = shown_values(action)
    return NewEvent(
        event_key=event_key(
            event.run_id, event.sequence, record.kind, record.action_hash, record.reviewer_id
        ),
        tenant_id=event.tenant_id,
        kind=kind,
        run_id=event.run_id,
        ticket_id=event.ticket_id,
        action_hash=record.action_hash,
        decided_at=record.at,
        reviewer_id=record.reviewer_id,
        reason=labelled(record.category, record.reason),
        order_id=order_id,
        amount_minor=amount_minor,
        currency=currency,
        proof=None if event.proof is None else event.proof.model_dump_json(),
        action=None if action is None else action.model_dump_json(),
        **insight_values(event, kind, action, tool),
    )


def append_decision(engine: Engine, event: DecisionEvent) -> DecisionRow:
    """Append one trail record; a retry of the same event returns the stored row. A
    reviewer's record keeps the action it decided, from the inbox's row (read before the
    event ends the wait and takes that row away)."""
    try:
        with write_transaction(engine) as session:
            return _append_decision_in(session, event)
    except IntegrityError:
        # Two attempts raced past each other's lock (a timed-out attempt still running):
        # the unique key let one commit. Answer as the retry would.
        with write_transaction(engine) as session:
            return _append_decision_in(session, event)


def _append_decision_in(session: Session, event: DecisionEvent) -> DecisionRow:
    kept = kept_action(session, event)
    new = from_trail(event, kept, None if kept is not None else _waiting_tool(session, event))
    row = append_event(session, new)
    follow_decision(session, event, new.kind)  # the inbox's read model, at once
    return row


def _waiting_tool(session: Session, event: DecisionEvent) -> str | None:
    """The tool of the event's action while it waits (its inbox row, read before the
    event takes it away), for the insight; None when it no longer waits."""
    text = session.scalar(
        select(WaitingAction.action).where(
            WaitingAction.run_id == event.run_id,
            WaitingAction.action_hash == event.record.action_hash,
        )
    )
    tool = None if text is None else json.loads(text).get("tool")
    return tool if isinstance(tool, str) else None


def append_executed(session: Session, command: RefundCommand, refund_id: str) -> DecisionRow:
    """The executed refund's event, in the caller's (the refund's) transaction."""
    return append_executed_effect(
        session,
        tenant_id=command.tenant_id,
        run_id=command.run_id,
        ticket_id=command.ticket_id,
        action_hash=command.action_hash,
        effect_key=command.idempotency_key,
        reason="approved by " + ", ".join(command.approvers),
        order_id=command.order_id,
        amount_minor=command.amount_minor,
        currency=command.currency,
        refund_id=refund_id,
    )


def append_executed_effect(
    session: Session,
    *,
    tenant_id: str,
    run_id: str,
    ticket_id: str,
    action_hash: str,
    effect_key: str,
    reason: str,
    order_id: str | None = None,
    amount_minor: int | None = None,
    currency: str | None = None,
    refund_id: str | None = None,
) -> DecisionRow:
    """Any effect's `executed` event (the refund's above, any other tool's in
    tool_effects.py), keyed by its idempotency key, in the effect's transaction."""
    return append_event(
        session,
        NewEvent(
            event_key=event_key(EXECUTED, effect_key),
            tenant_id=tenant_id,
            kind=EXECUTED,
            run_id=run_id,
            ticket_id=ticket_id,
            action_hash=action_hash,
            decided_at=datetime.now(UTC),
            reason=reason,
            order_id=order_id,
            amount_minor=amount_minor,
            currency=currency,
            refund_id=refund_id,
            outcome=None if refund_id is None else REFUNDED,
        ),
    )


def append_refused_effect(
    session: Session, command: RefundCommand, why: str, caller_run_id: str
) -> DecisionRow:
    """An effect the ledger refused to carry out, and why, in the caller's transaction:
    an attempt with a forged, altered or spent proof is on the record. One row per
    caller, action and reason: a retried attempt finds its row."""
    return append_refused(
        session,
        tenant_id=command.tenant_id,
        run_id=command.run_id,
        ticket_id=command.ticket_id,
        action_hash=command.action_hash,
        why=why,
        caller_run_id=caller_run_id,
        order_id=command.order_id,
        amount_minor=command.amount_minor,
        currency=command.currency,
    )


def append_refused(
    session: Session,
    *,
    tenant_id: str,
    run_id: str,
    ticket_id: str,
    action_hash: str,
    why: str,
    caller_run_id: str,
    order_id: str | None = None,
    amount_minor: int | None = None,
    currency: str | None = None,
) -> DecisionRow:
    """Any effect's refusal (the refund's above, any other tool's in tool_effects.py):
    one row per caller, action and reason."""
    return append_once(
        session,
        NewEvent(
            event_key=event_key(REFUSED_EFFECT, caller_run_id, action_hash, why),
            tenant_id=tenant_id,
            kind="refused",
            run_id=run_id,
            ticket_id=ticket_id,
            action_hash=action_hash,
            decided_at=datetime.now(UTC),
            reason=f"effect refused (called by workflow '{caller_run_id}'): {why}",
            order_id=order_id,
            amount_minor=amount_minor,
            currency=currency,
        ),
    )


def append_once(session: Session, new: NewEvent) -> DecisionRow:
    """Append `new` unless its event key is recorded already, whenever: a refused
    attempt made again (a retry, or a caller trying twice) is on the record once."""
    stored = session.scalars(
        select(DecisionRow).where(DecisionRow.event_key == new.event_key)
    ).one_or_none()
    return stored if stored is not None else append_event(session, new)


def append_event(session: Session, new: NewEvent) -> DecisionRow:
    """Append under the tenant's chain lock (see the module note). Raises UnknownTenant,
    or AuditConflict when the key is taken by another event.

    Core statements on the session's connection, not ORM queries: every decision and
    every effect appends here, and the ORM's loading and flush were most of the cost
    (docs/benchmarks/runs.md). The row returned is built here, not loaded."""
    session.flush()  # the caller's pending rows first, as the ORM's autoflush did
    connection = session.connection()
    if connection.execute(CHAIN_LOCK, {"tenant_id": new.tenant_id}).one_or_none() is None:
        raise UnknownTenant(new.tenant_id)
    stored = connection.execute(KEY_PROBE, {"event_key": new.event_key}).one_or_none()
    if stored is not None:
        if any(stored._mapping[name] != getattr(new, name) for name in IDENTITY_FIELDS):
            raise AuditConflict(new.event_key)
        found = session.get(DecisionRow, stored.id)  # a retry: rare, and read whole
        assert found is not None
        return found
    head = connection.execute(CHAIN_HEAD, {"tenant_id": new.tenant_id}).one_or_none()
    seq, prev = (head[0] + 1, head[1]) if head is not None else (1, GENESIS)
    row = DecisionRow(
        **new.__dict__, seq=seq, recorded_at=datetime.now(UTC), prev_hash=prev, row_hash=""
    )
    row.row_hash = row_hash(prev, row)
    # Unset columns (None) take their default, as the ORM's flush gave them.
    values = {column.key: getattr(row, column.key) for column in DECISIONS.c}
    values = {key: value for key, value in values.items() if value is not None}
    inserted = connection.execute(NEW_ROW, values).inserted_primary_key
    assert inserted is not None  # a single-row INSERT always has one
    row.id = inserted[0]
    add_row_at_commit(session, values)  # the insight's day, as the transaction commits
    return row
