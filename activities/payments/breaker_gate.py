"""A payment platform's refunds behind the tenant's breaker (activities/connectors/).

Design note. The breaker `payments:TENANT` counts the platform's failures to answer
(not now, or no answer at all); a refusal is an answer, so it closes nothing and opens
nothing. While the breaker is open a new refund is refused at once, with a refused audit
row and a result the model reads: nothing was refunded, a person or a later run may try
again. A refund whose approvals were already spent on its key (an earlier attempt may
have reached the platform) is never refused here: it fails as "not now", Temporal
retries it under the same key, and after the last attempt the run reports the outcome
as unknown for `signoff reconcile`. Once the cool-down is over, one call is let through
as the trial: its answer closes the breaker, its failure opens it again.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

from sqlalchemy import Engine

from activities.connectors.breakers import Breakers
from activities.payments.connector import PaymentOutcomeUnknown, PaymentUnavailable
from activities.store import remote_refunds
from activities.store.refunds import NOTHING_REFUNDED, LedgerAnswer, refused
from workflows.actions import RefundCommand


def payments_connector_name(tenant_id: str) -> str:
    """The breaker's name of a tenant's payment platform: one tenant's outage is its own."""
    return f"payments:{tenant_id}"


async def behind_breaker(
    engine: Engine,
    breakers: Breakers,
    command: RefundCommand,
    caller_run_id: str,
    refund: Callable[[], Awaitable[LedgerAnswer]],
) -> LedgerAnswer:
    """`refund()` if the tenant's breaker lets it through; its failures counted."""
    name = payments_connector_name(command.tenant_id)
    admission = await breakers.admit(name)
    if not admission.allowed:
        spent = await asyncio.to_thread(remote_refunds.key_spent, engine, command.idempotency_key)
        if spent:
            raise PaymentUnavailable(f"the {name} connector is switched off (its breaker is open)")
        state = admission.state
        until = state.open_until.strftime("%H:%M:%S UTC") if state.open_until else "later"
        why = (
            f"The {name} connector is switched off after {state.consecutive_failures} "
            f"failures in a row (last: {state.last_error or 'unknown'}) until {until}. "
            f"{NOTHING_REFUNDED}"
        )
        await asyncio.to_thread(remote_refunds.record_refusal, engine, command, why, caller_run_id)
        return LedgerAnswer(refused(why))
    try:
        answer = await refund()
    except (PaymentUnavailable, PaymentOutcomeUnknown) as error:
        await breakers.failed(name, str(error))
        raise
    await breakers.succeeded(name)
    return answer
