"""The run's decision records that an effect writes in its own transaction.

Design note. An approval the run checked itself (`workflows/decision_keyring.py`) goes
to its effect with no activity in between: the command carries the records of the
run's trail that are not in the audit yet (`RefundCommand.trail`), and the effect
writes them, each checked as `record_decision` checks it (`record_proofs.py`, which
also claims an approval's nonce for the run), before it decides. So the approval's
audit row, the nonce's claim, the ledger row and the `executed` row commit together;
an effect that refuses afterwards (an approver disabled since, a changed order) still
commits the approval's row and its own refusal. Each row is named by the run and its
place in the trail, as `record_decision` names it: whoever writes it first, the other
finds it and writes nothing.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Connection, Engine, select
from sqlalchemy.orm import Session

from activities.store.audit_actions import kept_action
from activities.store.decisions import append_event, from_trail
from activities.store.record_proofs import record_refusal_in
from activities.store.schema import DecisionRow
from activities.store.waiting_actions import follow_decision
from signoff.config.decision_signatures import VerificationKeys
from workflows.actions import DecisionEvent, PendingAction


def trail_problem(
    session: Session,
    trail: list[DecisionEvent],
    run_id: str,
    keys: VerificationKeys,
    action: PendingAction | None = None,
) -> str | None:
    """Write every record of `trail` in the caller's transaction; or say why none may be
    written (nothing is then written: the run's own `record_decision` tries again). A
    reviewer's record keeps the action it decided: the effect's `action` where it is that
    one (audit_actions.py)."""
    for event in trail:
        if event.run_id != run_id:
            return f"A decision record of run '{event.run_id}' came with an effect of '{run_id}'."
        refusal = record_refusal_in(session, event, keys)
        if refusal is not None:
            return refusal
    for event in trail:
        new = from_trail(event, kept_action(session, event, action))
        append_event(session, new)
        follow_decision(session, event, new.kind)
    return None


def trail_recorded(engine: Engine, trail: list[DecisionEvent]) -> dict[str, datetime]:
    """When each record of `trail` found in the audit was recorded, by event key (all of
    them when the effect wrote them, or found them written)."""
    if not trail:
        return {}
    with engine.connect() as connection:  # Core: one read, no objects to load
        return recorded_in(connection, trail)


def recorded_in(connection: Connection, trail: list[DecisionEvent]) -> dict[str, datetime]:
    """`trail_recorded` on a connection: inside the effect's own transaction, it reads
    what the effect wrote before it commits, and needs no transaction of its own."""
    keys = [from_trail(event).event_key for event in trail]
    if not keys:
        return {}
    rows = connection.execute(
        select(DecisionRow.event_key, DecisionRow.recorded_at).where(
            DecisionRow.event_key.in_(keys)
        )
    )
    return {key: at for key, at in rows}
