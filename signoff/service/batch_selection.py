"""A reviewer's selection, read back from the inbox's read model of their tenant: what the
batch page shows and sums up before the reviewer decides."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from activities.store.waiting_selection import waiting_selected
from signoff.service.batch_decisions import BatchKey
from signoff.service.handles import Store, engine_of
from signoff.service.pending_item import PendingItem
from workflows.actions import PendingAction


@dataclass(frozen=True)
class Selection:
    found: list[PendingItem]  # in the selection's order
    gone: list[BatchKey]  # no longer waiting in the tenant (decided, expired, changed)


def read_selection(store: Store, tenant_id: str, keys: list[BatchKey]) -> Selection:
    engine = engine_of(store)
    rows = waiting_selected(engine, tenant_id, [(key.run_id, key.action_hash) for key in keys])
    by_key = {
        BatchKey(row.run_id, row.action_hash): PendingItem(
            row.run_id, row.tenant_id, row.ticket_id, PendingAction.model_validate_json(row.action)
        )
        for row in rows
    }
    return Selection(
        found=[by_key[key] for key in keys if key in by_key],
        gone=[key for key in keys if key not in by_key],
    )


async def selection_of(store: Store, tenant_id: str, keys: list[BatchKey]) -> Selection:
    """read_selection off the event loop (the store is synchronous)."""
    return await asyncio.to_thread(read_selection, store, tenant_id, keys)
