"""An approved effect whose connector cannot take it now waits for it, durably.

Design note. A breaker exists to stop hammering a sick service, not to void what a
person decided. When an effect answers `unavailable` (its connector's breaker is open,
or every attempt found the platform saying "not now" before it did anything), nothing
was done and the approvals still hold. The run sleeps on a durable timer (a worker may
restart meanwhile) and asks again: after the connector's cool-down, with waits that
grow, for as long as the approval holds: until the action expires, or the connector's
`give_up_after`, whichever comes first. Every try carries the action's one idempotency
key, so the effect happens at most once, and exactly once when the connector is back.
When the run gives up, the audit says so, the model is told "approved but not carried
out", and the reviewers who approved it are told (a `not_carried_out` notice:
workflows/reviewer_notices.py).

While it waits, the run's `state` query lists the wait (`EffectWaiting`): `signoff
status`, the run page and the metrics read it there.

This is workflow code: timers, and no clock but `workflow.now()`.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import datetime, timedelta

from temporalio import workflow

with workflow.unsafe.imports_passed_through():
    from workflows.actions import PendingAction
    from workflows.connector_waits import ConnectorWait, EffectWaiting
    from workflows.gate_hooks import Effect

# The first wait after a connector said "not now", doubled on each try up to the longest.
FIRST_WAIT = timedelta(seconds=30)
LONGEST_WAIT = timedelta(minutes=15)


def next_wait(tries: int, wait: ConnectorWait | None) -> timedelta:
    """How long to wait before try `tries + 1`: the connector's cool-down, and at least
    a wait that doubles from FIRST_WAIT up to LONGEST_WAIT."""
    backoff = min(FIRST_WAIT * (1 << min(tries, 16)), LONGEST_WAIT)
    cool_down = timedelta(seconds=wait.retry_after_seconds) if wait is not None else timedelta()
    return max(backoff, cool_down)


def gives_up_at(action: PendingAction, since: datetime, wait: ConnectorWait | None) -> datetime:
    """The approval's end (its action's expiry), or the connector's `give_up_after`
    from the first "not now", whichever comes first."""
    if wait is None or wait.give_up_after_seconds is None:
        return action.expires_at
    return min(action.expires_at, since + timedelta(seconds=wait.give_up_after_seconds))


def gave_up(waiting: EffectWaiting, now: datetime, expires_at: datetime) -> Effect:
    """The effect the gate reports when the approval ran out (`expires_at`), or the
    connector's `give_up_after` passed, before the connector came back: nothing was done."""
    minutes = max(1, int((now - waiting.since).total_seconds() // 60))
    length = f"{minutes} min" if minutes < 120 else f"{minutes // 60} h"
    until = (
        "until the approval ran out"
        if waiting.give_up_at >= expires_at
        else f"until its give_up_after ({waiting.connector}'s setting) had passed"
    )
    return Effect(
        status="refused",
        gave_up=True,
        waited=waiting,
        message=(
            f"approved but not carried out: {waiting.connector} was unavailable for {length} "
            f"(last answer: {waiting.last_answer or 'none'}), {until}"
        ),
    )


async def when_available(
    action: PendingAction,
    attempt: Callable[[], Awaitable[Effect | None]],
    waits: dict[str, EffectWaiting],
    notify: Callable[[str], None],
) -> Effect | None:
    """`attempt()` until its effect is not `unavailable`, waiting between tries (see the
    note); while it waits, `waits[action.action_hash]` says so."""
    waiting: EffectWaiting | None = None
    try:
        while True:
            effect = await attempt()
            if effect is None or effect.status != "unavailable":
                return effect
            now = workflow.now()
            since = now if waiting is None else waiting.since
            tries = 0 if waiting is None else waiting.tries
            give_up = gives_up_at(action, since, effect.wait)
            waiting = EffectWaiting(
                action_hash=action.action_hash,
                tool=action.tool,
                connector=effect.wait.connector if effect.wait is not None else "its connector",
                since=since,
                # The last try falls on the approval's end, not after it.
                next_try_at=min(now + next_wait(tries, effect.wait), give_up),
                give_up_at=give_up,
                tries=tries + 1,
                last_answer=effect.message,
            )
            if now >= give_up:
                return gave_up(waiting, now, action.expires_at)
            waits[action.action_hash] = waiting
            notify(f"{action.tool}: {waiting.line()}")
            await workflow.sleep(waiting.next_try_at - now)
    finally:
        waits.pop(action.action_hash, None)
