"""A payment platform's refunds behind the tenant's breaker (activities/connectors/).

Design note. The breaker `payments:TENANT` counts the platform's failures to answer
(not now, or no answer at all); a refusal is an answer, so it closes nothing and opens
nothing. While the breaker is open the platform is not asked: an approved refund is
answered `unavailable`, with the breaker's cool-down. Nothing was refunded and its
approvals are not spent, so the run waits on a durable timer and asks again
(workflows/effect_waits.py): a breaker stops hammering a sick platform, it never voids
what a reviewer decided. A refund whose approvals were already spent on its key (an
earlier attempt may have reached the platform) waits the same way: its next attempt
looks the refund up by its key before it makes one. Once the cool-down is over, one
call is let through as the trial: its answer closes the breaker, its failure opens it
again.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from activities.connectors.breakers import Breakers
from activities.payments.connector import PaymentOutcomeUnknown, PaymentUnavailable
from activities.store.refunds import LedgerAnswer
from workflows.actions import RefundCommand, RefundResult
from workflows.connector_waits import ConnectorWait


def payments_connector_name(tenant_id: str) -> str:
    """The breaker's name of a tenant's payment platform: one tenant's outage is its own."""
    return f"payments:{tenant_id}"


async def switched_off(breakers: Breakers, tenant_id: str) -> str | None:
    """Why a refund may not be proposed now (the tenant's breaker is open), or None. A
    look, which takes no trial: the trial is an approved refund's."""
    name = payments_connector_name(tenant_id)
    state_name, state = await breakers.state(name)
    if state_name != "open":
        return None
    until = state.open_until or breakers.clock()
    return (
        f"The {name} connector is switched off after {state.consecutive_failures} failures "
        f"in a row (last: {state.last_error or 'unknown'}) until {until:%H:%M:%S} UTC, so no "
        "refund can be proposed now. Nothing was proposed to a reviewer; tell the customer "
        "a colleague will follow up."
    )


async def behind_breaker(
    breakers: Breakers,
    command: RefundCommand,
    refund: Callable[[], Awaitable[LedgerAnswer]],
    give_up_after_seconds: int | None = None,
) -> LedgerAnswer:
    """`refund()` if the tenant's breaker lets it through; its failures counted. While
    it is open the run waits, at most `give_up_after_seconds` (the tenant's setting)."""
    name = payments_connector_name(command.tenant_id)
    admission = await breakers.admit(name)
    if not admission.allowed:
        state = admission.state
        now = breakers.clock()
        until = state.open_until or now
        why = (
            f"The {name} connector is switched off after {state.consecutive_failures} "
            f"failures in a row (last: {state.last_error or 'unknown'}) until "
            f"{until:%H:%M:%S} UTC. Nothing was refunded yet: the approval stands and the "
            "run asks again when it is back."
        )
        wait = ConnectorWait(
            connector=name,
            retry_after_seconds=state.seconds_left(now),
            give_up_after_seconds=give_up_after_seconds,
        )
        return LedgerAnswer(RefundResult(status="unavailable", message=why, wait=wait))
    try:
        answer = await refund()
    except (PaymentUnavailable, PaymentOutcomeUnknown) as error:
        await breakers.failed(name, str(error))
        raise
    await breakers.succeeded(name)
    return answer
