"""The waiting rows a reviewer selected, read from the inbox's read model of their tenant.

A selection names (run, action hash) pairs; the query is bounded by the tenant first, so a
pair of another tenant is simply not found (never read, never counted).
"""

from __future__ import annotations

from sqlalchemy import Engine, select

from activities.store.database import use_session
from activities.store.schema import WaitingAction


def waiting_selected(
    engine: Engine, tenant_id: str, keys: list[tuple[str, str]]
) -> list[WaitingAction]:
    """The tenant's waiting rows among `keys` (run id, action hash), in no set order."""
    if not keys:
        return []
    wanted = set(keys)
    runs = sorted({run_id for run_id, _ in keys})
    statement = select(WaitingAction).where(
        WaitingAction.tenant_id == tenant_id, WaitingAction.run_id.in_(runs)
    )
    with use_session(engine) as session:
        rows = list(session.scalars(statement))
    return [row for row in rows if (row.run_id, row.action_hash) in wanted]
