"""What the tests read of the exposure holds (`pending_refunds`), which the product
itself only counts."""

from __future__ import annotations

from sqlalchemy import Engine, select

from activities.store.database import use_session
from activities.store.schema import PendingRefund


def list_pending_refunds(engine: Engine, tenant_id: str, order_id: str) -> list[str]:
    """The action hashes held on an order, expired or not, oldest first."""
    with use_session(engine) as session:
        return list(
            session.scalars(
                select(PendingRefund.action_hash)
                .where(PendingRefund.tenant_id == tenant_id, PendingRefund.order_id == order_id)
                .order_by(PendingRefund.created_at, PendingRefund.action_hash)
            )
        )
