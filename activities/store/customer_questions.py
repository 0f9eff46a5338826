"""Which run last asked a ticket's customer a question: the intake's way from a
customer's reply to the run that waits for it.

Design note. `ask_customer` sends its question as a row of the outbox
(customer_replies.py) under its effect's idempotency key, `{run id}:ask_customer:{action
hash}` (workflows/approval_policy.effect_key), which the effect computes again and never
takes from its caller. So the outbox already says, for each ticket, which run asked
last and when: no table of its own, and nothing a workflow writes. Whether that run
still waits is the run's own answer (its `customer_reply` validator), not the store's.

A reply names its ticket as the helpdesk knows it: a ticket the intake created is
found by the helpdesk's id (`intake_deliveries`), any other by signoff's own id; both
only among the tenant's own tickets.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import Engine, select

from activities.store.activity_refusals import REFUSED
from activities.store.connector_schema import CustomerReply, IntakeDelivery
from activities.store.database import use_session, write_transaction
from activities.store.decisions import NewEvent, append_once, event_key
from activities.store.schema import ID_LENGTH, KEY_LENGTH, Ticket
from workflows.tool_catalog import ASK_CUSTOMER

KEY_SEPARATOR = ":"
REFUSED_REPLY = "refused-customer-reply"


@dataclass(frozen=True)
class AskingRun:
    ticket_id: str
    # None when no run asked this ticket's customer anything.
    run_id: str | None
    asked_at: datetime | None


def asking_run(engine: Engine, tenant_id: str, source: str, ticket: str) -> AskingRun | None:
    """The run that last asked the customer of the tenant's `ticket` (the helpdesk's id
    for `source`, or signoff's own); None when the tenant has no such ticket."""
    with use_session(engine) as session:
        ticket_id = session.scalars(
            select(IntakeDelivery.ticket_id).where(
                IntakeDelivery.tenant_id == tenant_id,
                IntakeDelivery.source == source,
                IntakeDelivery.source_ticket_id == ticket,
            )
        ).first()
        if ticket_id is None:
            ticket_id = session.scalars(
                select(Ticket.id).where(Ticket.tenant_id == tenant_id, Ticket.id == ticket)
            ).one_or_none()
        if ticket_id is None:
            return None
        marker = f"{KEY_SEPARATOR}{ASK_CUSTOMER.name}{KEY_SEPARATOR}"
        asked = session.execute(
            select(CustomerReply.idempotency_key, CustomerReply.sent_at)
            .where(
                CustomerReply.tenant_id == tenant_id,
                CustomerReply.ticket_id == ticket_id,
                CustomerReply.idempotency_key.contains(marker, autoescape=True),
            )
            .order_by(CustomerReply.sent_at.desc(), CustomerReply.id.desc())
            .limit(1)
        ).one_or_none()
    if asked is None:
        return AskingRun(ticket_id, None, None)
    return AskingRun(ticket_id, run_of_key(asked.idempotency_key), asked.sent_at)


def run_of_key(key: str) -> str | None:
    """The run of an `ask_customer` effect key: everything before its last two parts
    (a run id may hold the separator, the tool's name and the hash never do)."""
    parts = key.rsplit(KEY_SEPARATOR, 2)
    if len(parts) != 3 or parts[1] != ASK_CUSTOMER.name:
        return None
    return parts[0]


@dataclass(frozen=True)
class RefusedReply:
    """A customer's reply the intake could not hand to a run, for the tenant's audit."""

    tenant_id: str
    ticket: str
    run_id: str | None
    source: str
    event_id: str
    why: str


def record_refused_reply(engine: Engine, refused: RefusedReply, now: datetime) -> None:
    """One `refused` row in the tenant's chain per delivery and reason: a helpdesk that
    sends the same reply again adds nothing (UnknownTenant for a tenant the store lacks)."""
    what = f"{refused.source} event {refused.event_id}"
    new = NewEvent(
        event_key=event_key(REFUSED_REPLY, refused.tenant_id, what, refused.ticket, refused.why),
        tenant_id=refused.tenant_id,
        kind=REFUSED,
        run_id=(refused.run_id or "")[:KEY_LENGTH],
        ticket_id=refused.ticket[:ID_LENGTH],
        action_hash=event_key(what),
        decided_at=now,
        reason=f"A customer's reply on ticket {refused.ticket} ({what}) was not delivered: "
        f"{refused.why}",
    )
    with write_transaction(engine) as session:
        append_once(session, new)
