"""Deciding five refunds at once in a real browser (see tests/ui/browser.py), one of which
expires between the moment the reviewer selected it and the moment they approve.

The middle one of the five (by amount, as the inbox sorts them here) was asked with a
one-minute approval TTL. The reviewer ticks the five, reads the summary, opens the batch
page, and approves all five once that one has expired: four refunds happen, and the
expired one is listed as failed with the run's own words, beside the others' successes.
"""

from __future__ import annotations

import asyncio
import subprocess
import time

import pytest
from playwright.sync_api import Page, expect
from sqlalchemy import Engine

from activities.store import list_refunds, write_transaction
from activities.store.schema import Order
from signoff.config.temporal_client import connect
from signoff.service.handles import Runs
from signoff.service.pending import run_state
from signoff.wiring.local_stack import SIGNOFF
from tests.ui.browser import screenshot, sign_in, watch_console
from tests.ui.conftest import (
    DevStack,
    RefundCase,
    add_case,
    in_thread,
    start_run,
    wait_until_pending,
)

pytestmark = [pytest.mark.devserver, pytest.mark.browser, pytest.mark.slow]
# The shortest approval TTL a run request takes is a minute: 0.017 h is 61 s.
SHORT_TTL_HOURS = "0.017"
EXPIRY_WAIT_SECONDS = 150
SETTLE_SECONDS = 30
AMOUNTS = [5000, 4000, 3000, 2000, 1000]  # the middle one (30.00) expires
# Resolves once htmx has swapped in the inbox's next refreshed list.
NEXT_REFRESH = """() => new Promise(resolve => document.body.addEventListener(
  "htmx:afterSwap", event => { if (event.detail.target.id === "inbox") resolve(true); }))"""


def started(stack: DevStack, store: Engine, amount_minor: int, ttl_hours: str | None) -> RefundCase:
    """A refund of `amount_minor` waiting for a decision; with `ttl_hours`, asked by
    `signoff run` with that approval TTL (SIGNOFF_APPROVAL_TTL_HOURS), otherwise started
    in this process as the other UI tests start theirs (tests/ui/conftest.py)."""
    case = add_case(store)
    with write_transaction(store) as session:
        order = session.get(Order, (case.tenant_id, case.order_id))
        assert order is not None
        order.amount_paid_minor = amount_minor
    if ttl_hours is None:
        start_run(stack, case)
    else:
        env = {**stack.env, "SIGNOFF_APPROVAL_TTL_HOURS": ttl_hours}
        request_id = case.run_id.removeprefix(f"run-{case.tenant_id}-")
        run = subprocess.run(
            [SIGNOFF, "run", "--ticket", case.ticket_id, "--request-id", request_id],
            env=env, capture_output=True, text=True, timeout=120,
        )  # fmt: skip
        assert run.returncode == 0, run.stderr
    wait_until_pending(stack, case)
    return case


def wait_until_expired(stack: DevStack, case: RefundCase) -> None:
    """Until the run recorded that no decision came in time (its own clock, its timer)."""

    async def poll() -> None:
        client = await connect(stack.settings())
        deadline = time.monotonic() + EXPIRY_WAIT_SECONDS
        while True:
            state = await run_state(Runs(client), case.run_id)
            if state is not None and any(r.kind == "expired" for r in state.decisions):
                return
            assert time.monotonic() < deadline, f"{case.run_id} never expired"
            await asyncio.sleep(1)

    in_thread(poll())


def test_a_batch_of_five_with_one_expired_in_the_middle(
    page: Page, dev_stack: DevStack, store: Engine
) -> None:
    problems = watch_console(page)
    cases = [
        started(dev_stack, store, amount, SHORT_TTL_HOURS if amount == 3000 else None)
        for amount in AMOUNTS
    ]
    expiring = cases[2]
    sign_in(page, dev_stack, "alice")
    page.goto(f"{dev_stack.ui_url}/approvals?sort=amount")
    summary = page.locator("#batch-summary")
    expect(summary).to_have_attribute("aria-live", "polite")
    for case, amount in zip(cases, AMOUNTS, strict=True):
        label = f"Select Refund {amount // 100}.00 EUR on order {case.order_id}"
        page.get_by_label(label).check()
    expect(summary).to_contain_text(
        "5 requests selected: 150.00 EUR in all. By mode: 5 with one reviewer."
    )
    # The list refreshes by itself; after its next refresh the five are still ticked.
    page.evaluate(NEXT_REFRESH)
    for case, amount in zip(cases, AMOUNTS, strict=True):
        label = f"Select Refund {amount // 100}.00 EUR on order {case.order_id}"
        expect(page.get_by_label(label)).to_be_checked()
    # The count above the list, and the batch bar at the bottom of the screen.
    screenshot(page, "batch-inbox.png", docs=True, top="#inbox-count")
    page.get_by_role("button", name="Decide the selected requests…").click()
    expect(page.get_by_role("heading", name="Decide several at once")).to_be_visible()
    expect(page.locator("#batch-summary")).to_contain_text("5 requests selected")
    rows = page.locator("ul.batch-list > li")
    expect(rows).to_have_count(5)
    expect(rows.nth(2)).to_have_attribute("data-run-id", expiring.run_id)
    screenshot(page, "batch-review.png")

    wait_until_expired(dev_stack, expiring)
    page.get_by_label("Reason, for every request").fill("Damaged on arrival, photos checked.")
    page.get_by_role("button", name="Approve all 5").click()

    expect(page.get_by_role("heading", name="Approved: 4 of 5")).to_be_visible()
    results = page.locator("table.batch-results tbody tr")
    expect(results).to_have_count(5)
    for index, case in enumerate(cases):
        row = results.nth(index)
        expect(row).to_have_attribute("data-run-id", case.run_id)
        if case is expiring:
            expect(row).to_have_class("outcome-failed")
            expect(row.locator(".outcome")).to_have_text("failed")
            expect(row.locator(".message")).to_contain_text("Expired")
            expect(row.locator(".message")).to_contain_text("it did not happen")
        else:
            expect(row.locator(".outcome")).to_have_text("approved")
    screenshot(page, "batch-results.png", docs=True)

    deadline = time.monotonic() + SETTLE_SECONDS
    for case, amount in zip(cases, AMOUNTS, strict=True):
        if case is expiring:
            continue
        while not list_refunds(store, case.tenant_id, case.order_id):
            assert time.monotonic() < deadline, f"{case.run_id} was never refunded"
            time.sleep(0.3)
        (refund,) = list_refunds(store, case.tenant_id, case.order_id)
        assert refund.amount_minor == amount
    assert list_refunds(store, expiring.tenant_id, expiring.order_id) == []
    assert problems == []
