"""Nonces of signed decisions: each counts once.

A nonce is claimed in one write transaction. The same update claiming it again (the
run's `verify_decision` local activity run again after its commit: a timed-out attempt,
a worker that died before the marker) gets its claim back; any other update gets a
refusal. The effect and the audit count a decision only when its nonce was claimed so
(`accepted_by_run`): that claim is the store's proof that the run accepted it.

The claim and its reading are Core statements on the transaction's connection: every
`decide` update claims, and every effect reads the claims, so the ORM's loading was a
cost paid on the decision's path for nothing (docs/benchmarks/runs.md).
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Engine, bindparam, insert, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from activities.store.database import table_of, write_connection
from activities.store.schema import DecisionNonce

NONCES = table_of(DecisionNonce)
# Built once, with bound parameters: every `decide` update claims, every effect reads.
CLAIM_OF = select(NONCES.c.run_id, NONCES.c.update_id, NONCES.c.reviewer_id).where(
    NONCES.c.nonce == bindparam("nonce")
)
NEW_CLAIM = insert(NONCES)


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
    with write_connection(engine) as connection:
        used = connection.execute(CLAIM_OF, {"nonce": nonce}).one_or_none()
        if used is not None:
            return (used.run_id, used.update_id) == (run_id, update_id)
        claim = {"run_id": run_id, "update_id": update_id, "reviewer_id": reviewer_id}
        connection.execute(NEW_CLAIM, {"nonce": nonce, "used_at": at, **claim})
        return True


def accepted_by_run(session: Session, *, nonce: str, run_id: str, reviewer_id: str) -> bool:
    """In the caller's transaction: True when the run's own `decide` update claimed the
    nonce for this run and this reviewer (`claim_nonce`, from `verify_decision`, which
    runs only as a local activity of the run's workflow task, after its validator found
    the action pending and unexpired). Nothing is claimed here: a decision no update of
    the run accepted counts for nothing, whatever the command that carries it says."""
    used = session.connection().execute(CLAIM_OF, {"nonce": nonce}).one_or_none()
    return used is not None and (used.run_id, used.reviewer_id) == (run_id, reviewer_id)
