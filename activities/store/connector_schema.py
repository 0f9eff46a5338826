"""Tables of tools and connectors: each irreversible tool call, the helpdesk outbox,
the helpdesk deliveries that started a triage, and the write connectors' breakers.

Kept beside `schema.py` (same `Base`, the same migrations): `activities/store/__init__`
imports this module so that the models and `Base.metadata` always include them.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import ForeignKey, Integer, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from activities.store.schema import HASH_LENGTH, ID_LENGTH, KEY_LENGTH, Base, UtcDateTime


class ToolEffect(Base):
    """One irreversible tool call carried out (or being carried out), by its key.

    Written in the transaction that verifies the call's proofs and spends them, before
    the tool runs (`started`), and finished with the tool's output (`done`): a retried
    activity finds its row and returns the output, or calls the tool again with the same
    idempotency key when the worker died in between (the tool must honour the key)."""

    __tablename__ = "tool_effects"

    idempotency_key: Mapped[str] = mapped_column(String(KEY_LENGTH), primary_key=True)
    tenant_id: Mapped[str] = mapped_column(String(ID_LENGTH), ForeignKey("tenants.id"))
    run_id: Mapped[str] = mapped_column(String(KEY_LENGTH))
    tool: Mapped[str] = mapped_column(String(ID_LENGTH))
    action_hash: Mapped[str] = mapped_column(String(HASH_LENGTH))
    # Comma-separated reviewer ids of the proofs spent on it; "" when `auto`.
    approvers: Mapped[str] = mapped_column(Text, default="")
    status: Mapped[str] = mapped_column(String(16))
    output: Mapped[str] = mapped_column(Text, default="")
    created_at: Mapped[datetime] = mapped_column(UtcDateTime)
    finished_at: Mapped[datetime | None] = mapped_column(UtcDateTime, nullable=True)


class CustomerReply(Base):
    """A reply sent to a customer by `send_reply` through the built-in helpdesk: the
    store's outbox. One per idempotency key."""

    __tablename__ = "customer_replies"

    id: Mapped[str] = mapped_column(String(ID_LENGTH), primary_key=True)
    tenant_id: Mapped[str] = mapped_column(String(ID_LENGTH), ForeignKey("tenants.id"))
    ticket_id: Mapped[str] = mapped_column(String(ID_LENGTH))
    text: Mapped[str] = mapped_column(Text)
    idempotency_key: Mapped[str] = mapped_column(String(KEY_LENGTH), unique=True)
    sent_at: Mapped[datetime] = mapped_column(UtcDateTime)
    # Where the reply went beside this outbox (the tenant's helpdesk connector), and
    # when it accepted it; None while it has not (or when the tenant has none).
    delivered_to: Mapped[str | None] = mapped_column(String(ID_LENGTH), nullable=True)
    delivered_at: Mapped[datetime | None] = mapped_column(UtcDateTime, nullable=True)


class IntakeDelivery(Base):
    """One helpdesk webhook delivery that started a triage: a delivery sent again (the
    same source, ticket and event) finds its row and starts nothing new. The helpdesk's
    own ticket id is kept for the reply that goes back to it."""

    __tablename__ = "intake_deliveries"
    __table_args__ = (
        UniqueConstraint("tenant_id", "source", "source_ticket_id", "event_id"),
        UniqueConstraint("tenant_id", "ticket_id"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    tenant_id: Mapped[str] = mapped_column(String(ID_LENGTH), ForeignKey("tenants.id"))
    source: Mapped[str] = mapped_column(String(32))
    source_ticket_id: Mapped[str] = mapped_column(String(ID_LENGTH))
    event_id: Mapped[str] = mapped_column(String(ID_LENGTH))
    ticket_id: Mapped[str] = mapped_column(String(ID_LENGTH))
    run_id: Mapped[str] = mapped_column(String(KEY_LENGTH))
    received_at: Mapped[datetime] = mapped_column(UtcDateTime)


class ConnectorBreaker(Base):
    """A write connector's circuit breaker, shared by every worker and read by
    `signoff connectors` (activities/connectors/breaker.py holds its rules)."""

    __tablename__ = "connector_breakers"

    name: Mapped[str] = mapped_column(String(ID_LENGTH), primary_key=True)
    consecutive_failures: Mapped[int] = mapped_column(Integer, default=0)
    # Set while open: no call until then; after it, one trial call.
    open_until: Mapped[datetime | None] = mapped_column(UtcDateTime, nullable=True)
    # The trial call in flight since then (half-open); others wait for its answer.
    trial_started_at: Mapped[datetime | None] = mapped_column(UtcDateTime, nullable=True)
    last_error: Mapped[str] = mapped_column(Text, default="")
    updated_at: Mapped[datetime] = mapped_column(UtcDateTime)
