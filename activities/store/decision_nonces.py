"""Nonces of signed decisions: each counts once.

A nonce is claimed in one write transaction. The same update claiming it again (the
run's `verify_decision` local activity run again after its commit: a timed-out attempt,
a worker that died before the marker) gets its claim back; any other update gets a
refusal.
An approval the run checked itself is claimed where it is first used, by the effect or
by the audit record of it (`claim_for_run`), in that write's own transaction.
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


# The update id a claim made by a record or an effect carries: the run's own `decide`
# did not claim it (the run checked the signature itself, `workflows/decision_keyring.py`).
CLAIMED_AT_USE = "claimed-at-use"


def claim_for_run(
    session: Session, *, nonce: str, run_id: str, reviewer_id: str, at: datetime
) -> bool:
    """In the caller's transaction: True when the nonce is this run's and this reviewer's
    (claimed now, or before by the run), False when another run or reviewer holds it.
    A signature covers the run and the reviewer, so only a forgery could meet False."""
    used = session.get(DecisionNonce, nonce)
    if used is not None:
        return (used.run_id, used.reviewer_id) == (run_id, reviewer_id)
    session.add(
        DecisionNonce(
            nonce=nonce,
            run_id=run_id,
            update_id=CLAIMED_AT_USE,
            reviewer_id=reviewer_id,
            used_at=at,
        )
    )
    session.flush()
    return True
