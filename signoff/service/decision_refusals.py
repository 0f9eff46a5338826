"""The decision service's record of a decision the run refused without a trace.

A decision the `decide` validator refuses never reaches the run's history (see
`workflows/refusal_kinds.py`): the service that authenticated the reviewer and sent
it writes its `refused` audit row, so that an auditor sees from the store alone who
tried to decide what and why it was refused (`activities/store/sent_refusals.py` says
why the rows stay bounded). A refusal the run recorded itself, or a store that did not
answer, is not written again. Best effort: the reviewer gets the run's refusal even
when the audit cannot be written (it is logged).
"""

from __future__ import annotations

import asyncio
import logging
from datetime import UTC, datetime

from sqlalchemy.exc import SQLAlchemyError

from activities.store import StoreError
from activities.store.sent_refusals import append_sent_refusal
from signoff.service.handles import Store, engine_of
from signoff.service.pending import DecisionNotAccepted
from workflows.actions import Decision
from workflows.refusal_kinds import UNRECORDED

log = logging.getLogger(__name__)


async def record_sent_refusal(
    store: Store, run_id: str, decision: Decision, refused: DecisionNotAccepted
) -> None:
    """Write the refusal's audit row when no run recorded it (module note)."""
    if refused.kind not in UNRECORDED:
        return
    kind = refused.kind
    try:
        await asyncio.to_thread(
            append_sent_refusal,
            engine_of(store),
            tenant_id=decision.tenant_id,
            run_id=run_id,
            reviewer_id=decision.reviewer_id,
            action_hash=decision.original_hash or decision.action_hash,
            verdict=decision.verdict,
            kind=kind,
            why=refused.message,
            at=datetime.now(UTC),
        )
    except (StoreError, SQLAlchemyError) as error:
        log.warning("could not record a refused decision on %s: %s", run_id, error)
