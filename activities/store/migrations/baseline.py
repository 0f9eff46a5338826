"""The store's schema as the first revision (0001) creates it, frozen.

Design note. A revision must keep creating what it created the day it was written, so
this is a copy of the tables of `schema.py` at that revision, not an import of them: a
later change to the models goes into a new revision, and this file stays as it is (the
PostgreSQL trigger of the audit table too, copied from `append_only.py`).

It is also the measure of a store made before migrations (by `create_all`, with no
`alembic_version` table): `schema_migrations.py` creates what such a store lacks from
this metadata and compares the rest against it before stamping it as revision 0001.
"""

from __future__ import annotations

from sqlalchemy import (
    Boolean,
    Column,
    Connection,
    DateTime,
    ForeignKey,
    ForeignKeyConstraint,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    UniqueConstraint,
    text,
    true,
)

ID = 128
KEY = 255
HASH = 64
NAME = 200

APPEND_ONLY_FUNCTION = """
CREATE OR REPLACE FUNCTION signoff_decisions_append_only() RETURNS trigger AS $$
BEGIN
    RAISE EXCEPTION 'the decisions table is append-only: % refused', TG_OP
        USING ERRCODE = 'insufficient_privilege';
END;
$$ LANGUAGE plpgsql
"""
APPEND_ONLY_TRIGGERS = {
    "decisions_append_only": (
        "BEFORE UPDATE OR DELETE ON decisions "
        "FOR EACH ROW EXECUTE FUNCTION signoff_decisions_append_only()"
    ),
    "decisions_no_truncate": (
        "BEFORE TRUNCATE ON decisions "
        "FOR EACH STATEMENT EXECUTE FUNCTION signoff_decisions_append_only()"
    ),
}


def _time(name: str, **kwargs: object) -> Column[object]:
    return Column(name, DateTime(timezone=True), **kwargs)  # type: ignore[arg-type]


def baseline_metadata() -> MetaData:
    metadata = MetaData()
    Table(
        "tenants",
        metadata,
        Column("id", String(ID), primary_key=True),
        Column("name", String(NAME), nullable=False),
        Column("refund_review_threshold_minor", Integer, nullable=False),
    )
    Table(
        "orders",
        metadata,
        Column("tenant_id", String(ID), ForeignKey("tenants.id"), primary_key=True),
        Column("id", String(ID), primary_key=True),
        Column("amount_paid_minor", Integer, nullable=False),
        Column("currency", String(3), nullable=False),
        Column("status", String(32), nullable=False),
        Column("tracking", String(ID), nullable=True),
        Column("customer_name", String(NAME), nullable=False),
    )
    Table(
        "tickets",
        metadata,
        Column("tenant_id", String(ID), ForeignKey("tenants.id"), primary_key=True),
        Column("id", String(ID), primary_key=True),
        Column("order_id", String(ID), nullable=True),
        Column("customer_name", String(NAME), nullable=False),
        Column("text", Text, nullable=False),
        _time("created_at", nullable=False),
        ForeignKeyConstraint(["tenant_id", "order_id"], ["orders.tenant_id", "orders.id"]),
    )
    Table(
        "refunds",
        metadata,
        Column("id", String(ID), primary_key=True),
        Column("tenant_id", String(ID), ForeignKey("tenants.id"), nullable=False),
        Column("order_id", String(ID), nullable=False),
        Column("amount_minor", Integer, nullable=False),
        Column("currency", String(3), nullable=False),
        Column("idempotency_key", String(KEY), nullable=False, unique=True),
        Column("run_id", String(KEY), nullable=False),
        Column("action_hash", String(HASH), nullable=False),
        Column("approvers", Text, nullable=False),
        Column("reason", Text, nullable=False),
        _time("created_at", nullable=False),
        ForeignKeyConstraint(["tenant_id", "order_id"], ["orders.tenant_id", "orders.id"]),
        Index("ix_refunds_order", "tenant_id", "order_id"),
    )
    Table(
        "decisions",
        metadata,
        Column("id", Integer, primary_key=True, autoincrement=True),
        Column("tenant_id", String(ID), ForeignKey("tenants.id"), nullable=False),
        Column("seq", Integer, nullable=False),
        Column("event_key", String(HASH), nullable=False, unique=True),
        Column("kind", String(32), nullable=False),
        Column("run_id", String(KEY), nullable=False),
        Column("ticket_id", String(ID), nullable=False),
        Column("action_hash", String(HASH), nullable=False),
        Column("reviewer_id", String(ID), nullable=True),
        Column("reason", Text, nullable=False),
        Column("order_id", String(ID), nullable=True),
        Column("amount_minor", Integer, nullable=True),
        Column("currency", String(3), nullable=True),
        Column("refund_id", String(ID), nullable=True),
        _time("decided_at", nullable=False),
        _time("recorded_at", nullable=False),
        Column("prev_hash", String(HASH), nullable=False),
        Column("row_hash", String(HASH), nullable=False),
        UniqueConstraint("tenant_id", "seq", name="uq_decisions_tenant_seq"),
        Index("ix_decisions_tenant_time", "tenant_id", "decided_at", "id"),
    )
    Table(
        "refund_settlements",
        metadata,
        Column("idempotency_key", String(KEY), primary_key=True),
        Column("tenant_id", String(ID), ForeignKey("tenants.id"), nullable=False),
        Column("run_id", String(KEY), nullable=False),
        Column("action_hash", String(HASH), nullable=False),
        Column("outcome", String(16), nullable=False),
        Column("refund_id", String(ID), nullable=True),
        _time("settled_at", nullable=False),
    )
    Table(
        "reviewers",
        metadata,
        Column("id", String(ID), primary_key=True),
        Column("tenant_id", String(ID), ForeignKey("tenants.id"), nullable=False),
        Column("display_name", String(NAME), nullable=False),
        Column("roles", Text, nullable=False),
        Column("password_hash", Text, nullable=True),
        Column("active", Boolean, nullable=False, server_default=true()),
        Column("name_key", String(KEY), nullable=False, unique=True, index=True),
        Column("api_token_hash", String(HASH), nullable=True, unique=True, index=True),
    )
    Table(
        "decision_nonces",
        metadata,
        Column("nonce", String(HASH), primary_key=True),
        Column("run_id", String(KEY), nullable=False),
        Column("update_id", String(KEY), nullable=False),
        Column("reviewer_id", String(ID), nullable=False),
        _time("used_at", nullable=False),
    )
    Table(
        "pending_refunds",
        metadata,
        Column("action_hash", String(HASH), primary_key=True),
        Column("run_id", String(KEY), nullable=False),
        Column("tenant_id", String(ID), ForeignKey("tenants.id"), nullable=False),
        Column("order_id", String(ID), nullable=False),
        Column("amount_minor", Integer, nullable=False),
        _time("expires_at", nullable=False),
        _time("created_at", nullable=False),
        ForeignKeyConstraint(["tenant_id", "order_id"], ["orders.tenant_id", "orders.id"]),
        Index("ix_pending_refunds_order", "tenant_id", "order_id"),
    )
    Table(
        "ui_sessions",
        metadata,
        Column("id_hash", String(HASH), primary_key=True),
        Column(
            "reviewer_id",
            String(ID),
            ForeignKey("reviewers.id", ondelete="CASCADE"),
            nullable=False,
            index=True,
        ),
        _time("created_at", nullable=False),
        _time("expires_at", nullable=False, index=True),
    )
    return metadata


def create_baseline(connection: Connection) -> None:
    """Creates the tables of revision 0001 that are missing, and the audit's trigger."""
    metadata = baseline_metadata()
    metadata.create_all(connection, checkfirst=True)
    if connection.dialect.name == "postgresql":
        install_append_only_trigger(connection)


def install_append_only_trigger(connection: Connection) -> None:
    """PostgreSQL refuses UPDATE, DELETE and TRUNCATE on `decisions` (see append_only.py).
    Idempotent: a store made by `create_all` already has the trigger."""
    connection.execute(text(APPEND_ONLY_FUNCTION))
    for name, definition in APPEND_ONLY_TRIGGERS.items():
        connection.execute(text(f"DROP TRIGGER IF EXISTS {name} ON decisions"))
        connection.execute(text(f"CREATE TRIGGER {name} {definition}"))
