"""A decision the run refused before it counted, as the decision service that sent it
records it: who claimed to decide, what, and why the run said no.

Design note. A decision the `decide` validator refuses (a forged, altered or stale
signature, an action no longer pending, a rule of the gate) never reaches the run's
history, so no run records it. The decision service that authenticated the reviewer
and sent it does: one `refused` row in the reviewer's own tenant's chain, naming the
reviewer, the run and the action. Without the signature: the row is the service's word,
and a signed decision kept here could be shown to an effect as a proof.

Bounded. Only an authenticated caller reaches the service (anything sent straight to
Temporal is noise the validator drops without a trace), and the rows of one caller are
deduplicated: one per reviewer, run, action and kind of refusal, and one per reviewer
and run for hashes the run never had (`UNKNOWN_ACTION`): sending the same refused
decision again, or a thousand made-up hashes, adds nothing after the first. So a
reviewer's rows are at most a few per action of the runs of their tenant.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Engine

from activities.store.database import write_transaction
from activities.store.decisions import NewEvent, append_once, event_key
from activities.store.schema import DecisionRow
from workflows.refusal_kinds import UNKNOWN_ACTION

SENT_REFUSED = "sent-refused"


def append_sent_refusal(
    engine: Engine,
    *,
    tenant_id: str,
    run_id: str,
    reviewer_id: str,
    action_hash: str,
    verdict: str,
    kind: str,
    why: str,
    at: datetime,
) -> DecisionRow:
    """Append the refusal once (module note); a repeat returns the first row. Raises
    UnknownTenant for a tenant the store does not hold."""
    action_key = "" if kind == UNKNOWN_ACTION else action_hash
    new = NewEvent(
        event_key=event_key(SENT_REFUSED, tenant_id, run_id, reviewer_id, kind, action_key),
        tenant_id=tenant_id,
        kind="refused",
        run_id=run_id,
        ticket_id="",
        action_hash=action_hash,
        decided_at=at,
        reviewer_id=reviewer_id,
        reason=f"the run refused {reviewer_id}'s {verdict} before it counted ({kind}): {why}",
    )
    with write_transaction(engine) as session:
        return append_once(session, new)
