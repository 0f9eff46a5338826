"""An activity's refusal of a call, on the audit: who called, what, and why.

Design note. Anyone who reaches the Temporal frontend can call signoff's activities by
name, for a tenant and run of their choosing. A call an activity refuses (a tool the
worker's profile does not declare, an irreversible tool asked for as a read, a profile
the worker does not hold, a caller that is not one of signoff's runs) must be provable
later from the store alone, not only from a worker's log. So it is one `refused` row in
the named tenant's chain, saying which workflow called, what it asked and why it was
refused. One row per caller, call and reason: a retried or repeated call adds nothing
after the first, so a caller cannot grow a chain by more than a row per distinct call.
A tenant the store does not hold has no chain: that refusal is logged only.
"""

from __future__ import annotations

import hashlib
import logging
from datetime import UTC, datetime

from sqlalchemy import Engine

from activities.store.database import write_transaction
from activities.store.decisions import NewEvent, append_once, event_key
from activities.store.errors import UnknownTenant
from activities.store.schema import ID_LENGTH, KEY_LENGTH

logger = logging.getLogger(__name__)
REFUSED_CALL = "refused-call"
REFUSED = "refused"
# A caller writes these; a row keeps enough of each to name it, not a megabyte of it.
MAX_WHAT_CHARS = 300


def record_refusal(
    engine: Engine,
    *,
    tenant_id: str,
    run_id: str,
    ticket_id: str,
    activity: str,
    what: str,
    why: str,
    caller_run_id: str,
) -> bool:
    """Append the refusal once (module note); False when the tenant has no chain."""
    what = what[:MAX_WHAT_CHARS]
    call_hash = hashlib.sha256(f"{activity}\n{what}".encode()).hexdigest()
    new = NewEvent(
        event_key=event_key(REFUSED_CALL, tenant_id, caller_run_id, call_hash, why),
        tenant_id=tenant_id[:ID_LENGTH],
        kind=REFUSED,
        run_id=run_id[:KEY_LENGTH],
        ticket_id=ticket_id[:ID_LENGTH],
        action_hash=call_hash,
        decided_at=datetime.now(UTC),
        reason=f"{activity} refused (called by workflow '{caller_run_id}'): {what}: {why}",
    )
    try:
        with write_transaction(engine) as session:
            append_once(session, new)
    except UnknownTenant:
        logger.warning(
            "refused %s for unknown tenant %r (called by %r): %s",
            activity,
            tenant_id[:ID_LENGTH],
            caller_run_id,
            why,
        )
        return False
    return True
