"""Refunds through Stripe (localstripe) with a worker killed after Stripe accepted them.

N runs on orders paid in localstripe reach the refund on one worker, which dies by one
SIGKILL once N refund activities have returned (Stripe holds each refund, signoff has
recorded it, Temporal has heard nothing); then a new `signoff worker` starts alone on
the task queue. Each run must end with exactly one refund, counted in Stripe itself:
localstripe honours no idempotency key, so only the look-up by key stands between a
retried attempt and a second refund.
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import replace

from activities.payments.registry import PaymentConnectors
from bench.chaos.kills import died
from bench.chaos.processes import worker_process
from bench.chaos.runs import (
    TENANT,
    Bench,
    Row,
    approve_all,
    finish_refunds,
    refund_row,
    retried_attempts,
    retried_text,
    start_runs,
)
from signoff.service.handles import Store
from signoff.service.payment_orders import link_payment
from testkit.localstripe import TEST_KEY, running_localstripe
from testkit.refund_cases import PAID_MINOR, add_refund_cases

PHASE = "worker SIGKILL after Stripe accepted the refund, before its activity completed"


async def stripe_kill(bench: Bench, env: dict[str, str], runs: int) -> Row:
    home = bench.settings.home
    key_file = home / f"stripe-{bench.settings.task_queue}.key"
    key_file.write_text(TEST_KEY)
    os.chmod(key_file, 0o600)
    keys = home / f"stripe-{bench.settings.task_queue}.json"
    keys.write_text(json.dumps({TENANT: {"key_file": key_file.name}}))
    with running_localstripe() as server:
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
        env = {**env, "SIGNOFF_STRIPE_KEYS_FILE": str(keys), "SIGNOFF_STRIPE_API_BASE": server.url}
        what = f"{PHASE} ({runs} runs caught in it)"
        with worker_process(env, "stripe-first", kill_at="after_refund", kill_after=runs) as first:
            handles = await start_runs(bench, tickets)
            await approve_all(bench, handles)
            await died(first, what)
        injected_at = time.monotonic()
        before = sum(len(server.refunds(charge)) for charge in charges)
        with worker_process(env, "stripe-second"):
            finished = await finish_refunds(bench, handles, decide_too=False)
            retried = await retried_attempts(handles)
        in_stripe = [len(server.refunds(charge)) for charge in charges]
    row = refund_row(PHASE, bench, tickets, finished, injected_at)
    notes = [
        f"{PHASE}: Stripe held {before} of {runs} refunds before the kill; refunds in Stripe "
        f"per order after: {sorted(set(in_stripe))}; activity attempts retried after it: "
        f"{retried_text(retried)}.",
        *row.notes,
    ]
    return replace(
        row,
        lost=row.lost + sum(count == 0 for count in in_stripe),
        doubled=(row.doubled or 0) + sum(count > 1 for count in in_stripe),
        notes=notes,
    )
