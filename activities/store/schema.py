"""Tables of the shop the agent works for: tenants, their orders, tickets, refunds and
the people who review refunds.

Every table after `tenants` is keyed by (tenant_id, id), and a ticket's order is a
foreign key *within the same tenant*: the database itself refuses a ticket that points
at another tenant's order. Money is stored as integer minor units; `Numeric` would be a
float on SQLite.
"""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

from sqlalchemy import (
    BigInteger,
    Boolean,
    DateTime,
    ForeignKey,
    ForeignKeyConstraint,
    Index,
    Integer,
    String,
    Text,
    TypeDecorator,
    UniqueConstraint,
    true,
)
from sqlalchemy.engine import Dialect
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column, validates

from activities.store.insight_columns import INSIGHT_COLUMNS
from activities.store.reviewer_names import reviewer_name_key
from activities.store.text_lists import split_list
from workflows.contract_base import tenant_id_problem

ID_LENGTH = 128  # matches IDENTIFIER_PATTERN in workflows.contracts
# Run ids and idempotency keys are built by the workflow from several identifiers.
KEY_LENGTH = 255
HASH_LENGTH = 64  # a SHA-256 in hex
NAME_LENGTH = 200
LANGUAGE_LENGTH = 16  # a language tag the reviewer UI has a catalog for, e.g. "fr"
# A WebAuthn credential id is at most 1023 bytes: 1364 characters of base64url.
PASSKEY_ID_LENGTH = 1400
MINOR_UNITS = Decimal("0.01")  # every currency we sell in has 2 decimals
DEFAULT_REFUND_REVIEW_THRESHOLD_MINOR = 20_000


def minor_to_decimal(minor: int) -> Decimal:
    return (Decimal(minor) * MINOR_UNITS).quantize(MINOR_UNITS)


def decimal_to_minor(amount: Decimal) -> int:
    """Exact conversion; an amount with sub-cent digits is a bug, not something to round."""
    minor = amount / MINOR_UNITS
    if minor != minor.to_integral_value():
        raise ValueError(f"{amount} has more than 2 decimals")
    return int(minor)


class UtcDateTime(TypeDecorator[datetime]):
    """Aware UTC datetimes in and out; SQLite drops the zone, so we put it back."""

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> Any:
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError("naive datetime: pass an aware UTC datetime")
        return value.astimezone(UTC)

    def process_result_value(self, value: Any, dialect: Dialect) -> datetime | None:
        if not isinstance(value, datetime):
            return None
        if value.tzinfo is None:
            return value.replace(tzinfo=UTC)
        return value.astimezone(UTC)


class Base(DeclarativeBase):
    pass


class Tenant(Base):
    __tablename__ = "tenants"

    id: Mapped[str] = mapped_column(String(ID_LENGTH), primary_key=True)
    name: Mapped[str] = mapped_column(String(NAME_LENGTH))
    refund_review_threshold_minor: Mapped[int] = mapped_column(
        Integer, default=DEFAULT_REFUND_REVIEW_THRESHOLD_MINOR
    )

    @validates("id")
    def _valid_id(self, _key: str, value: str) -> str:
        # Checked wherever a tenant is created: a '-' would make run ids ambiguous.
        problem = tenant_id_problem(value)
        if problem is not None:
            raise ValueError(problem)
        return value

    @property
    def refund_review_threshold(self) -> Decimal:
        return minor_to_decimal(self.refund_review_threshold_minor)


class Order(Base):
    __tablename__ = "orders"

    tenant_id: Mapped[str] = mapped_column(
        String(ID_LENGTH), ForeignKey("tenants.id"), primary_key=True
    )
    id: Mapped[str] = mapped_column(String(ID_LENGTH), primary_key=True)
    amount_paid_minor: Mapped[int] = mapped_column(Integer)
    currency: Mapped[str] = mapped_column(String(3))
    status: Mapped[str] = mapped_column(String(32))
    tracking: Mapped[str | None] = mapped_column(String(ID_LENGTH))
    customer_name: Mapped[str] = mapped_column(String(NAME_LENGTH))

    @property
    def amount_paid(self) -> Decimal:
        return minor_to_decimal(self.amount_paid_minor)


class PaymentLink(Base):
    """Where an order was paid, when the tenant's refunds go through a payment platform
    (activities/payments/): that platform, never the order's own columns, then says what
    was paid and refunded. An order of the embedded ledger has no link."""

    __tablename__ = "payment_links"
    __table_args__ = (
        ForeignKeyConstraint(["tenant_id", "order_id"], ["orders.tenant_id", "orders.id"]),
    )

    tenant_id: Mapped[str] = mapped_column(String(ID_LENGTH), primary_key=True)
    order_id: Mapped[str] = mapped_column(String(ID_LENGTH), primary_key=True)
    # The platform's name ("stripe") and its payment there (`pi_...` or `ch_...`).
    provider: Mapped[str] = mapped_column(String(32))
    payment_ref: Mapped[str] = mapped_column(String(ID_LENGTH))
    linked_at: Mapped[datetime] = mapped_column(UtcDateTime)


class Ticket(Base):
    __tablename__ = "tickets"
    __table_args__ = (
        ForeignKeyConstraint(["tenant_id", "order_id"], ["orders.tenant_id", "orders.id"]),
    )

    tenant_id: Mapped[str] = mapped_column(
        String(ID_LENGTH), ForeignKey("tenants.id"), primary_key=True
    )
    id: Mapped[str] = mapped_column(String(ID_LENGTH), primary_key=True)
    order_id: Mapped[str | None] = mapped_column(String(ID_LENGTH))
    customer_name: Mapped[str] = mapped_column(String(NAME_LENGTH))
    text: Mapped[str] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime)


class Refund(Base):
    """One line of the refund ledger. The ledger is the truth about what was refunded:
    an order's refunded total is the sum of its rows, never a counter kept beside it."""

    __tablename__ = "refunds"
    __table_args__ = (
        ForeignKeyConstraint(["tenant_id", "order_id"], ["orders.tenant_id", "orders.id"]),
        Index("ix_refunds_order", "tenant_id", "order_id"),
    )

    id: Mapped[str] = mapped_column(String(ID_LENGTH), primary_key=True)
    tenant_id: Mapped[str] = mapped_column(String(ID_LENGTH), ForeignKey("tenants.id"))
    order_id: Mapped[str] = mapped_column(String(ID_LENGTH))
    amount_minor: Mapped[int] = mapped_column(Integer)
    currency: Mapped[str] = mapped_column(String(3))
    # The effect happens once per key: a retried activity finds its own row here.
    idempotency_key: Mapped[str] = mapped_column(String(KEY_LENGTH), unique=True)
    run_id: Mapped[str] = mapped_column(String(KEY_LENGTH))
    # The approval this refund executes: the action hash the reviewers decided on.
    action_hash: Mapped[str] = mapped_column(String(HASH_LENGTH))
    # Comma-separated reviewer ids; ids cannot contain a comma (IDENTIFIER_PATTERN).
    approvers: Mapped[str] = mapped_column(Text)
    reason: Mapped[str] = mapped_column(Text, default="")
    created_at: Mapped[datetime] = mapped_column(UtcDateTime)

    @property
    def amount(self) -> Decimal:
        return minor_to_decimal(self.amount_minor)

    @property
    def approver_list(self) -> list[str]:
        return split_list(self.approvers)


class DecisionRow(Base):
    """One event of the audit: append-only, chained per tenant (see `decision_chain.py`).

    `seq` counts the tenant's events from 1; `(tenant_id, seq)` is unique, so two
    appends that raced past the lock could not both extend the chain. `event_key` names
    the event (run, place in its trail, kind, action, reviewer): a retried activity
    finds its own row. `row_hash` is the SHA-256 of `prev_hash` and the row's fields.
    """

    __tablename__ = "decisions"
    __table_args__ = (
        UniqueConstraint("tenant_id", "seq", name="uq_decisions_tenant_seq"),
        Index("ix_decisions_tenant_time", "tenant_id", "decided_at", "id"),
        # The audit's filters by reviewer and by kind: their COUNT and keyset page read
        # an index, not 100,000 rows (revision 0003).
        Index("ix_decisions_tenant_reviewer_seq", "tenant_id", "reviewer_id", "seq"),
        Index("ix_decisions_tenant_kind_seq", "tenant_id", "kind", "seq"),
        # A tenant's first row that keeps its action (audit_actions.py): read for every
        # audit page. Revision 0011 makes it partial (only rows that keep one); the model
        # names its columns alone, since a dialect's `*_where` here would load every
        # dialect SQLAlchemy has into each worker (3.5 MiB) at import.
        Index("ix_decisions_tenant_kept_seq", "tenant_id", "seq"),
        # The approval insight (approval_insight.py): a period read from the index alone;
        # a shadow rule's action found by run and hash. Partial in revision 0013.
        Index("ix_decisions_tenant_insight", "tenant_id", "decided_at", *INSIGHT_COLUMNS),
        Index("ix_decisions_tenant_run_outcome", "tenant_id", "run_id", "action_hash", "outcome"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    tenant_id: Mapped[str] = mapped_column(String(ID_LENGTH), ForeignKey("tenants.id"))
    seq: Mapped[int] = mapped_column(Integer)
    event_key: Mapped[str] = mapped_column(String(HASH_LENGTH), unique=True)
    kind: Mapped[str] = mapped_column(String(32))
    run_id: Mapped[str] = mapped_column(String(KEY_LENGTH))
    ticket_id: Mapped[str] = mapped_column(String(ID_LENGTH))
    action_hash: Mapped[str] = mapped_column(String(HASH_LENGTH))
    reviewer_id: Mapped[str | None] = mapped_column(String(ID_LENGTH), nullable=True)
    reason: Mapped[str] = mapped_column(Text, default="")
    order_id: Mapped[str | None] = mapped_column(String(ID_LENGTH), nullable=True)
    amount_minor: Mapped[int | None] = mapped_column(Integer, nullable=True)
    currency: Mapped[str | None] = mapped_column(String(3), nullable=True)
    refund_id: Mapped[str | None] = mapped_column(String(ID_LENGTH), nullable=True)
    # When it was decided (workflow time), and when the store wrote it (wall clock).
    decided_at: Mapped[datetime] = mapped_column(UtcDateTime)
    recorded_at: Mapped[datetime] = mapped_column(UtcDateTime)
    prev_hash: Mapped[str] = mapped_column(String(HASH_LENGTH))
    row_hash: Mapped[str] = mapped_column(String(HASH_LENGTH))
    # A reviewer's decision keeps the signed decision that proves it (JSON), outside the
    # hash: the signature is its own seal (activities/store/audit_proofs.py, revision
    # 0006_decision_proofs).
    proof: Mapped[str | None] = mapped_column(Text, nullable=True, default=None)
    # The action that proof names (the PendingAction's JSON), from which the row's order,
    # amount and currency come; covered by the hash through its digest
    # (activities/store/audit_actions.py, revision 0011_decision_actions).
    action: Mapped[str | None] = mapped_column(Text, nullable=True, default=None)
    # What the approval insight groups on, derived when the row is written, outside the
    # hash (insight_columns.py, revision 0013_decision_insight); outcome None: ends no request.
    outcome: Mapped[str | None] = mapped_column(String(16), nullable=True, default=None)
    tool: Mapped[str | None] = mapped_column(String(ID_LENGTH), nullable=True, default=None)
    category: Mapped[str | None] = mapped_column(String(32), nullable=True, default=None)
    waited_ms: Mapped[int | None] = mapped_column(BigInteger, nullable=True, default=None)
    rule_id: Mapped[str | None] = mapped_column(String(ID_LENGTH), nullable=True, default=None)

    @property
    def amount(self) -> Decimal | None:
        return None if self.amount_minor is None else minor_to_decimal(self.amount_minor)


class RefundSettlement(Base):
    """How `signoff reconcile` settled a refund whose outcome the run never learned.

    `not_refunded` is final: the refund path refuses the key from then on, so an old
    attempt still stuck in a worker cannot commit after a person was told it did not
    happen. Settling and refunding lock the same order row, so one of them sees the other.
    """

    __tablename__ = "refund_settlements"

    idempotency_key: Mapped[str] = mapped_column(String(KEY_LENGTH), primary_key=True)
    tenant_id: Mapped[str] = mapped_column(String(ID_LENGTH), ForeignKey("tenants.id"))
    run_id: Mapped[str] = mapped_column(String(KEY_LENGTH))
    action_hash: Mapped[str] = mapped_column(String(HASH_LENGTH))
    # "refunded" or "not_refunded"
    outcome: Mapped[str] = mapped_column(String(16))
    refund_id: Mapped[str | None] = mapped_column(String(ID_LENGTH), nullable=True)
    settled_at: Mapped[datetime] = mapped_column(UtcDateTime)


class Reviewer(Base):
    """A person who may decide on pending actions of one tenant, with named roles."""

    __tablename__ = "reviewers"

    id: Mapped[str] = mapped_column(String(ID_LENGTH), primary_key=True)
    tenant_id: Mapped[str] = mapped_column(String(ID_LENGTH), ForeignKey("tenants.id"))
    display_name: Mapped[str] = mapped_column(String(NAME_LENGTH))
    # Comma-separated role names, e.g. "refund_approver"; empty for none.
    roles: Mapped[str] = mapped_column(Text, default="")
    # Set when the reviewer can sign in to the web UI; the CLI does not need it.
    password_hash: Mapped[str | None] = mapped_column(Text, nullable=True)
    # A disabled reviewer cannot sign in or decide; their sessions and API token stop.
    active: Mapped[bool] = mapped_column(Boolean, default=True, server_default=true())
    # Unique: `Alice` cannot be added beside `alice` (reviewer_names.py). Set from id.
    name_key: Mapped[str] = mapped_column(String(KEY_LENGTH), unique=True, index=True)
    # Unused since revision 0005_accounts: tokens live in `api_tokens` (expiry, revocation,
    # several per reviewer). Kept so that a store is never rewritten to drop it.
    api_token_hash: Mapped[str | None] = mapped_column(
        String(HASH_LENGTH), nullable=True, unique=True, index=True
    )

    @validates("id")
    def _derive_name_key(self, _field: str, value: str) -> str:
        self.name_key = reviewer_name_key(value)
        return value

    @property
    def role_list(self) -> list[str]:
        return split_list(self.roles)


class DecisionNonce(Base):
    """A signed decision's nonce, once used: a replayed decision finds it here.

    The update id tells a retried verification (same update, same nonce: fine) from a
    replay (another update carrying a nonce already spent).
    """

    __tablename__ = "decision_nonces"

    nonce: Mapped[str] = mapped_column(String(HASH_LENGTH), primary_key=True)
    run_id: Mapped[str] = mapped_column(String(KEY_LENGTH))
    update_id: Mapped[str] = mapped_column(String(KEY_LENGTH))
    reviewer_id: Mapped[str] = mapped_column(String(ID_LENGTH))
    used_at: Mapped[datetime] = mapped_column(UtcDateTime)
    # The effect (its idempotency key) this decision was spent on: a proof authorizes
    # one effect, in the effect's own transaction (activities/store/effect_proofs.py).
    effect_key: Mapped[str | None] = mapped_column(String(KEY_LENGTH), nullable=True)


class PendingRefund(Base):
    """A refund that waits for a decision: part of its order's exposure until released.

    Written when the action starts waiting and deleted when it is decided, voided,
    replaced or executed (see `pending_refunds.py`). A run that dies leaves its row
    behind; the row stops counting at `expires_at`, when its approval could no longer
    be given anyway.
    """

    __tablename__ = "pending_refunds"
    __table_args__ = (
        ForeignKeyConstraint(["tenant_id", "order_id"], ["orders.tenant_id", "orders.id"]),
        Index("ix_pending_refunds_order", "tenant_id", "order_id"),
    )

    action_hash: Mapped[str] = mapped_column(String(HASH_LENGTH), primary_key=True)
    run_id: Mapped[str] = mapped_column(String(KEY_LENGTH))
    tenant_id: Mapped[str] = mapped_column(String(ID_LENGTH), ForeignKey("tenants.id"))
    order_id: Mapped[str] = mapped_column(String(ID_LENGTH))
    amount_minor: Mapped[int] = mapped_column(Integer)
    expires_at: Mapped[datetime] = mapped_column(UtcDateTime)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime)


class WaitingAction(Base):
    """The read model of the inbox: one row per (run, action) while it waits.

    Written with the action's exposure hold (`pending_refunds.py`), brought up to date
    by the audit's writer on a first approval of two, deleted when the action is
    decided, voided, replaced or released, and reconciled from Temporal's visibility
    when a worker starts (`waiting_actions.py`). The columns are what the lists sort,
    filter and count on; `action` is the whole `PendingAction` (JSON) the pages show.
    """

    __tablename__ = "waiting_actions"
    __table_args__ = (
        Index("ix_waiting_actions_tenant_expiry", "tenant_id", "expires_at", "action_hash"),
        Index("ix_waiting_actions_expiry", "expires_at", "action_hash"),
        Index("ix_waiting_actions_tenant_amount", "tenant_id", "amount_minor", "action_hash"),
        # The mode filter's pages and count, and the count of waiting runs, read from an
        # index alone: the rows themselves are large (`action`).
        Index(
            "ix_waiting_actions_tenant_mode_expiry",
            "tenant_id",
            "mode",
            "expires_at",
            "action_hash",
        ),
        Index("ix_waiting_actions_tenant_run", "tenant_id", "run_id"),
    )

    run_id: Mapped[str] = mapped_column(String(KEY_LENGTH), primary_key=True)
    action_hash: Mapped[str] = mapped_column(String(HASH_LENGTH), primary_key=True)
    tenant_id: Mapped[str] = mapped_column(String(ID_LENGTH), ForeignKey("tenants.id"))
    ticket_id: Mapped[str] = mapped_column(String(ID_LENGTH))
    order_id: Mapped[str] = mapped_column(String(ID_LENGTH))
    # The declared exposure's (the refund's); NULL for a tool that declares none.
    amount_minor: Mapped[int | None] = mapped_column(Integer, nullable=True)
    currency: Mapped[str | None] = mapped_column(String(3), nullable=True)
    # "confirm" or "review"
    mode: Mapped[str] = mapped_column(String(16))
    approvals_required: Mapped[int] = mapped_column(Integer)
    approvals_given: Mapped[int] = mapped_column(Integer)
    expires_at: Mapped[datetime] = mapped_column(UtcDateTime)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime)
    action: Mapped[str] = mapped_column(Text)
