"""Tables of the shop the agent works for: tenants, their orders, their tickets.

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
    DateTime,
    ForeignKey,
    ForeignKeyConstraint,
    Integer,
    String,
    Text,
    TypeDecorator,
)
from sqlalchemy.engine import Dialect
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

ID_LENGTH = 128  # matches IDENTIFIER_PATTERN in workflows.contracts
NAME_LENGTH = 200
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
