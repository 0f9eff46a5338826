"""Stripe out while approved refunds wait for it: an approval is kept, or its reviewer told.

Two phases on orders paid in localstripe, each with its own `signoff worker`, task queue
and localstripe. Stripe is paused (SIGSTOP: every call waits unanswered until the
connector's timeout) once the runs wait for a reviewer, and the refunds are approved
while it is out, so no refund was ever sent to it:

- back: Stripe out for `pause` (2 min by default; the breaker `payments:demo` opens
  after SIGNOFF_BREAKER_FAILURES calls go unanswered, within seconds), then resumed.
  Each run must end completed with exactly one refund, counted in Stripe itself; while
  Stripe is out each run says "approved; waiting for payments:demo since …".
- gone: Stripe out past the tenant's `give_up_after` (its keys file). Each run must end
  "approved but not carried out": its result says so, a `refused` audit row says so,
  and the reviewers' webhook got one `not_carried_out` notice naming alice; Stripe is
  then resumed, and after LATER_SECONDS no refund has appeared in it.
"""

from __future__ import annotations

import asyncio
import json
import os
import time
from collections.abc import Awaitable
from dataclasses import dataclass
from typing import Any

from sqlalchemy import select

from activities.payments.registry import PaymentConnectors
from activities.store.database import use_session
from activities.store.schema import DecisionRow
from bench.chaos.processes import worker_process
from bench.chaos.runs import (
    ALICE,
    TENANT,
    Bench,
    Handle,
    Row,
    approve_all,
    describe,
    ends,
    pending_hash,
    refund_row,
    start_runs,
)
from signoff.service.handles import Store
from signoff.service.payment_orders import link_payment
from testkit.localstripe import TEST_KEY, LocalStripe, running_localstripe
from testkit.refund_cases import PAID_MINOR, add_refund_cases
from testkit.webhook_receiver import Receiver, webhook_receiver
from workflows.agent_run import AgentRun
from workflows.contracts import RunOutcome
from workflows.profile_values import parse_duration

BACK = "Stripe out {pause} s under approved refunds, then back"
GONE = "Stripe out past the tenant's give_up_after ({give_up})"
GAVE_UP = "approved but not carried out"
# After Stripe is back, how long the gone phase watches for a refund that should not come.
LATER_SECONDS = 30
# Bounds on waiting beyond the outage itself: the runs' next try after Stripe is back
# (the waits double from 30 s, at least the breaker's cool-down), then the refund.
AFTER_OUTAGE_SECONDS = 420


@dataclass(frozen=True)
class Outage:
    """How long Stripe is out in the back phase, and the tenant's give_up_after."""

    seconds: int
    give_up: str


def outage_preface(outage: Outage, faults: list[str]) -> list[str]:
    """What the report says of the outage phases before its table."""
    if "outage" not in faults:
        return []
    return [
        f"Stripe outage: out {outage.seconds} s, then back; then out past a give_up_after "
        f"of {outage.give_up}. The worker's breaker: SIGNOFF_BREAKER_FAILURES and "
        "SIGNOFF_BREAKER_COOLDOWN_SECONDS at their defaults (5 failures, 60 s). A run of "
        f"these phases counts as lost when still going {AFTER_OUTAGE_SECONDS} s after "
        "Stripe's return (or after give_up_after has passed).",
        "",
    ]


@dataclass
class PaidOrders:
    tickets: list[str]
    charges: list[str]
    env: dict[str, str]


def paid_orders(
    bench: Bench, env: dict[str, str], server: LocalStripe, runs: int, give_up: str | None
) -> PaidOrders:
    """`runs` orders paid in `server`, linked to their payments, and the worker's
    environment that refunds the tenant through it (with `give_up` in its keys file)."""
    home, queue = bench.settings.home, bench.settings.task_queue
    key_file = home / f"stripe-{queue}.key"
    key_file.write_text(TEST_KEY)
    os.chmod(key_file, 0o600)
    entry: dict[str, str] = {"key_file": key_file.name}
    if give_up is not None:
        entry["give_up_after"] = give_up
    keys = home / f"stripe-{queue}.json"
    keys.write_text(json.dumps({TENANT: entry}))
    settings = bench.settings.model_copy(
        update={"stripe_keys_file": keys, "stripe_api_base": server.url}
    )
    payments = PaymentConnectors(settings)
    tickets = add_refund_cases(settings.resolved_database_url, TENANT, runs)
    charges = []
    for ticket in tickets:
        intent, charge = server.paid_charge(PAID_MINOR)
        link_payment(
            Store(bench.engine),
            payments,
            tenant_id=TENANT,
            order_id=ticket.removeprefix("T-"),
            payment_ref=intent,
            customer_name="Kim Bench",
        )
        charges.append(charge)
    stripe_env = {"SIGNOFF_STRIPE_KEYS_FILE": str(keys), "SIGNOFF_STRIPE_API_BASE": server.url}
    return PaidOrders(tickets, charges, {**env, **stripe_env})


async def waiting_count(handles: list[Handle]) -> int:
    """How many runs say they wait for their platform (the `state` query)."""
    states = await asyncio.gather(*(handle.query(AgentRun.state) for handle in handles))
    return sum(bool(state.effects_waiting) for state in states)


async def stripe_back(bench: Bench, env: dict[str, str], runs: int, pause: int) -> Row:
    fault = BACK.format(pause=pause)
    with running_localstripe() as server:
        orders = paid_orders(bench, env, server, runs, give_up=None)
        with worker_process(orders.env, "outage-back"):
            handles = await start_runs(bench, orders.tickets)
            await asyncio.gather(*(pending_hash(handle) for handle in handles))
            server.pause()
            try:
                paused_at = time.monotonic()
                await approve_all(bench, handles)
                await asyncio.sleep(max(0.0, pause - (time.monotonic() - paused_at)))
                waiting = await waiting_count(handles)
            finally:
                server.resume()
            resumed_at = time.monotonic()
            finished = await ends([handle.result() for handle in handles], AFTER_OUTAGE_SECONDS)
        in_stripe = [len(server.refunds(charge)) for charge in orders.charges]
    row = refund_row(fault, bench, orders.tickets, finished, resumed_at)
    notes = [
        f"{fault}: at the end of the outage {waiting} of {runs} runs said "
        f'"approved; waiting for payments:demo since …"; refunds in Stripe per order after: '
        f"{sorted(set(in_stripe))}; recovery counted from Stripe's return.",
        *row.notes,
    ]
    lost = row.lost + sum(count == 0 for count in in_stripe)
    doubled = (row.doubled or 0) + sum(count > 1 for count in in_stripe)
    return Row(fault, runs, lost, doubled, row.recovery_seconds, notes)


async def stripe_gone(bench: Bench, env: dict[str, str], runs: int, give_up: str) -> Row:
    fault = GONE.format(give_up=give_up)
    with webhook_receiver() as receiver, running_localstripe() as server:
        orders = paid_orders(bench, env, server, runs, give_up=give_up)
        worker_env = {**orders.env, "SIGNOFF_NOTIFY_WEBHOOK_URL": receiver.url}
        with worker_process(worker_env, "outage-gone"):
            handles = await start_runs(bench, orders.tickets)
            await asyncio.gather(*(pending_hash(handle) for handle in handles))
            server.pause()
            try:
                await approve_all(bench, handles)
                approved_at = time.monotonic()
                results: list[Awaitable[Any]] = [handle.result() for handle in handles]
                within = parse_duration(give_up).total_seconds() + AFTER_OUTAGE_SECONDS
                finished = await ends(results, within)
            finally:
                server.resume()
            await asyncio.sleep(LATER_SECONDS)  # a refund made later would show by now
        in_stripe = [len(server.refunds(charge)) for charge in orders.charges]
    problems = [
        f"{ticket}: {problem}"
        for ticket, handle, end, refunds in zip(
            orders.tickets, handles, finished, in_stripe, strict=True
        )
        if (problem := gone_problem(bench, handle, end, refunds, receiver)) is not None
    ]
    last = max((end[1] for end in finished if end is not None), default=approved_at)
    notes = [
        f"{fault}: {runs - len(problems)} of {runs} runs waited from their approval until "
        f'{give_up} had passed, then ended "{GAVE_UP}" with a refused audit row and one '
        f"not_carried_out notice naming {ALICE.reviewer_id}; {len(receiver.posts)} notices in "
        "all (each run's request waiting, then not carried out); refunds in Stripe per "
        f"order {LATER_SECONDS} s after it was back: {sorted(set(in_stripe))}; recovery "
        "counted from the approvals to the last run's end.",
        *problems,
    ]
    doubled = sum(count > 1 for count in in_stripe)
    return Row(fault, runs, len(problems), doubled, last - approved_at, notes)


def gone_problem(
    bench: Bench,
    handle: Handle,
    end: tuple[Any, float] | None,
    refunds: int,
    receiver: Receiver,
) -> str | None:
    """What is wrong with a run of the gone phase, or None."""
    outcome = end[0] if end else None
    if not isinstance(outcome, RunOutcome) or outcome.status != "completed":
        return describe(outcome)
    if not any(GAVE_UP in line for line in outcome.not_performed):
        return f"its outcome does not say {GAVE_UP!r}: {outcome.not_performed}"
    if refunds:
        return f"{refunds} refund(s) in Stripe"
    with use_session(bench.engine) as session:
        reasons = session.scalars(
            select(DecisionRow.reason).where(
                DecisionRow.run_id == handle.id, DecisionRow.kind == "refused"
            )
        )
        if not any(GAVE_UP in reason for reason in reasons):
            return f"no refused audit row says {GAVE_UP!r}"
    told = [
        post.body["signoff"]
        for post in receiver.posts
        if post.body["signoff"]["kind"] == "not_carried_out"
        and post.body["signoff"]["run_id"] == handle.id
    ]
    if len(told) != 1 or told[0]["approved_by"] != [ALICE.reviewer_id]:
        return f"{len(told)} not_carried_out notice(s): {told}"
    return None
