"""An irreversible action whose outcome nobody knows: the ledger never answered.

When every attempt of the refund activity failed (a timeout, a dropped connection, a
worker that died), the refund may have committed before the failure, or not: the
workflow cannot tell, and must not say either. The model is told the outcome is
unknown and that a person will check; the run's outcome lists the action here, with the
idempotency key under which the ledger would hold it; `signoff reconcile RUN` looks
that key up and says which it was.
"""

from __future__ import annotations

from workflows.contract_base import Contract

UNKNOWN_OUTCOME_TEXT = "outcome unknown: a person will check"


class UnknownEffect(Contract):
    action_hash: str
    tool: str
    # The key the refund activity used: the ledger row, if any, carries it.
    idempotency_key: str
    order_id: str | None = None
    amount: str | None = None
    currency: str | None = None
    description: str = ""
