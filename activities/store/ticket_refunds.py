"""The refunds signoff made for a ticket's runs, and the edit a reviewer made to each.

A reviewer deciding on a refund must see that the same ticket was refunded before, even
on another run or order, and why the reviewer then changed the amount where one did:
the audit holds both. Its `executed` rows name the ticket and the refund; its `edited`
rows, the run and the reviewer's words. One read of each, by the tenant's own index.
"""

from __future__ import annotations

from sqlalchemy import Engine, select

from activities.store.database import use_session
from activities.store.schema import DecisionRow

EXECUTED = "executed"
EDITED = "edited"


def ticket_refunds(engine: Engine, tenant_id: str, ticket_id: str) -> dict[str, str]:
    """Each refund made for a run of this ticket: its id → what the reviewer wrote when
    they edited the proposal ("" when it was approved as the agent proposed it)."""
    with use_session(engine) as session:
        made = session.execute(
            select(DecisionRow.refund_id, DecisionRow.run_id).where(
                DecisionRow.tenant_id == tenant_id,
                DecisionRow.ticket_id == ticket_id,
                DecisionRow.kind == EXECUTED,
                DecisionRow.refund_id.is_not(None),
            )
        ).all()
        edits = session.execute(
            select(DecisionRow.run_id, DecisionRow.reason)
            .where(
                DecisionRow.tenant_id == tenant_id,
                DecisionRow.ticket_id == ticket_id,
                DecisionRow.kind == EDITED,
            )
            .order_by(DecisionRow.seq)
        ).all()
    edited = {run_id: reason for run_id, reason in edits}
    return {refund_id: edited.get(run_id, "") for refund_id, run_id in made if refund_id}
