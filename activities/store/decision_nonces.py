"""Nonces of signed decisions: each counts once.

A nonce is claimed in one write transaction. The same update claiming it again (an
activity retried after its commit) gets its claim back; any other update gets a refusal.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Engine

from activities.store.database import write_transaction
from activities.store.schema import DecisionNonce


def claim_nonce(
    engine: Engine, *, nonce: str, run_id: str, update_id: str, reviewer_id: str, at: datetime
) -> bool:
    """True when this update may use the nonce; False when another already did."""
    with write_transaction(engine) as session:
        used = session.get(DecisionNonce, nonce)
        if used is not None:
            return used.run_id == run_id and used.update_id == update_id
        session.add(
            DecisionNonce(
                nonce=nonce, run_id=run_id, update_id=update_id, reviewer_id=reviewer_id, used_at=at
            )
        )
        return True
