"""Rows for the inbox's read model at scale, without thousands of live runs.

`signoff pending` reads the read model alone (never Temporal), so what its time depends
on is how many rows the page and its counts cover, not whether each row's run is alive:
copies of one real waiting action (each its own hash, run id and expiry) give it 10,000
rows in seconds, where filling live runs takes an hour (bench/results/SCALE.md). `status`
and `approve` still act on live runs.
"""

from __future__ import annotations

import hashlib
from datetime import UTC, datetime, timedelta

from sqlalchemy import Engine

from activities.store import write_transaction
from activities.store.waiting_actions import new_row
from signoff.service.pending_item import PendingItem

BATCH = 1_000


def seed_copies(engine: Engine, model: PendingItem, count: int) -> list[tuple[str, str]]:
    """`count` rows like `model`'s, expiring one second apart after it; the run id and
    action hash of each, in order."""
    now = datetime.now(UTC)
    written: list[tuple[str, str]] = []
    for start in range(0, count, BATCH):
        with write_transaction(engine) as session:
            for index in range(start, min(start + BATCH, count)):
                action = model.action.model_copy(
                    update={
                        "action_hash": hashlib.sha256(f"bench-{index}".encode()).hexdigest(),
                        "expires_at": model.action.expires_at + timedelta(seconds=index + 1),
                    }
                )
                run_id = f"{model.run_id}-copy-{index}"
                session.add(new_row(model.tenant_id, run_id, model.ticket_id, action, now))
                written.append((run_id, action.action_hash))
    return written
