"""Edit, then approve, in a real browser: a reviewer lowers the refund on the decision
page; the refund row holds the edited amount, the model's next turn read the "approved
with changes" result (its answer quotes the edited amount), and the run page shows both
actions and who edited."""

from __future__ import annotations

import time
from decimal import Decimal

import pytest
from playwright.sync_api import Page, expect
from sqlalchemy import Engine

from activities.store import list_refunds
from tests.ui.browser import screenshot, sign_in, watch_console
from tests.ui.conftest import DevStack, add_case, start_run, wait_until_pending

pytestmark = [pytest.mark.devserver, pytest.mark.browser]
SETTLE_SECONDS = 60
TOLD = "approved with changes: refunded 25.00 EUR of the 60.00 EUR proposed; reason: goodwill"


def test_a_reviewer_lowers_the_refund_and_the_agent_reads_what_was_done(
    page: Page, dev_stack: DevStack, store: Engine
) -> None:
    problems = watch_console(page)
    case = add_case(store)
    start_run(dev_stack, case)
    original = wait_until_pending(dev_stack, case)
    sign_in(page, dev_stack, "alice")
    detail_url = f"{dev_stack.ui_url}/approvals/{case.run_id}"
    page.goto(detail_url)

    amount = page.get_by_label("Amount to refund instead (EUR, at most 60.00)")
    expect(amount).to_have_value("")  # not prefilled: an unchanged edit is Approve's job
    amount.fill("25.00")
    page.get_by_label("Why you change it (required; the agent is told)").fill("goodwill")
    screenshot(page, "detail-edit-amount.png", docs=True)
    page.get_by_role("button", name="Approve with changes").click()
    expect(page.get_by_role("status")).to_contain_text("Approved with changes.")

    deadline = time.monotonic() + SETTLE_SECONDS
    while not list_refunds(store, case.tenant_id, case.order_id):
        assert time.monotonic() < deadline, "the edited refund was never made"
        time.sleep(0.3)
    (row,) = list_refunds(store, case.tenant_id, case.order_id)
    assert (row.amount, row.approver_list) == (Decimal("25.00"), ["alice"])
    assert row.action_hash != original

    page.goto(f"{dev_stack.ui_url}/runs/{case.run_id}")
    while page.locator("#run-status").inner_text() != "completed":
        assert time.monotonic() < deadline, page.content()
        page.wait_for_timeout(300)
        page.reload()
    # The scripted agent's answer is built from the refund result it read.
    expect(page.locator("blockquote.agent")).to_contain_text("Your refund of 25.00 EUR")
    edited = page.locator("table.decisions tbody tr", has_text="edited")
    expect(edited).to_contain_text("alice")
    expect(edited).to_contain_text("amount 60.00 → 25.00")
    expect(edited.locator("code")).to_have_attribute("title", original)
    approved = page.locator("table.decisions tbody tr", has_text="approved")
    expect(approved).to_contain_text("25.00 EUR")
    expect(approved.locator("code")).to_have_attribute("title", row.action_hash)

    # The trajectory shows the result exactly as the model received it.
    page.goto(detail_url)
    result = page.locator("pre.json", has_text="approved with changes")
    expect(result).to_contain_text(TOLD)
    assert problems == []
