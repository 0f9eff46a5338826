"""Nonces of signed decisions: each counts once.

A nonce is claimed in one write transaction. The same update claiming it again (the
run's `verify_decision` local activity run again after its commit: a timed-out attempt,
a worker that died before the marker) gets its claim back; any other update gets a
refusal. The effect and the audit count a decision only when its nonce was claimed so
(`accepted_by_run`): that claim is the store's proof that the run accepted it.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Engine
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from activities.store.database import write_transaction
from activities.store.schema import DecisionNonce


def claim_nonce(
    engine: Engine, *, nonce: str, run_id: str, update_id: str, reviewer_id: str, at: datetime
) -> bool:
    """True when this update may use the nonce; False when another already did."""
    claim = {"nonce": nonce, "run_id": run_id, "update_id": update_id, "reviewer_id": reviewer_id}
    try:
        return _claim(engine, at=at, **claim)
    except IntegrityError:
        # Two attempts of one check raced (the run's local activity timed out while its
        # attempt still ran): the unique key let one commit. Answer as the retry would.
        return _claim(engine, at=at, **claim)


def _claim(
    engine: Engine, *, nonce: str, run_id: str, update_id: str, reviewer_id: str, at: datetime
) -> bool:
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


def accepted_by_run(session: Session, *, nonce: str, run_id: str, reviewer_id: str) -> bool:
    """In the caller's transaction: True when the run's own `decide` update claimed the
    nonce for this run and this reviewer (`claim_nonce`, from `verify_decision`, which
    runs only as a local activity of the run's workflow task, after its validator found
    the action pending and unexpired). Nothing is claimed here: a decision no update of
    the run accepted counts for nothing, whatever the command that carries it says."""
    used = session.get(DecisionNonce, nonce)
    return used is not None and (used.run_id, used.reviewer_id) == (run_id, reviewer_id)
