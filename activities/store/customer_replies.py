"""The built-in helpdesk: `send_reply` writes the reply to the store's outbox.

A team that connects its own helpdesk replaces this connector; this one keeps what a
connector must: one reply per idempotency key, whatever the retries.
"""

from __future__ import annotations

import uuid
from datetime import UTC, datetime

from sqlalchemy import Engine, select

from activities.store.connector_schema import CustomerReply
from activities.store.database import write_transaction


def send_reply(engine: Engine, tenant_id: str, ticket_id: str, text: str, key: str) -> str:
    """The reply's id: a new one, or the one sent earlier under the same key."""
    with write_transaction(engine) as session:
        sent = session.scalars(
            select(CustomerReply.id).where(CustomerReply.idempotency_key == key)
        ).one_or_none()
        if sent is not None:
            return sent
        reply_id = f"R-{uuid.uuid4().hex[:12]}"
        session.add(
            CustomerReply(
                id=reply_id,
                tenant_id=tenant_id,
                ticket_id=ticket_id,
                text=text,
                idempotency_key=key,
                sent_at=datetime.now(UTC),
            )
        )
        return reply_id


def mark_delivered(engine: Engine, key: str, delivered_to: str, now: datetime) -> None:
    """The reply under `key` accepted by the tenant's helpdesk (set once)."""
    with write_transaction(engine) as session:
        reply = session.scalars(
            select(CustomerReply).where(CustomerReply.idempotency_key == key)
        ).one_or_none()
        if reply is not None and reply.delivered_at is None:
            reply.delivered_to = delivered_to
            reply.delivered_at = now
