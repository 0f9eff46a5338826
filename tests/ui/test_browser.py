"""The reviewer's path in a real browser (see tests/ui/browser.py): a refund arrives
without reload, is opened, approved, and the run's timeline shows the decision; a
hostile ticket is shown as text and nothing in it runs."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect
from sqlalchemy import Engine

from tests.ui.browser import ARRIVAL_TIMEOUT_MS, screenshot, sign_in, watch_console
from tests.ui.conftest import DevStack, add_case, start_run

pytestmark = pytest.mark.devserver

HOSTILE_TEXT = (
    "My parcel arrived damaged.\n"
    "<script>window.__pwned = 'script'</script>\n"
    "<img src=x onerror=\"window.__pwned = 'img'\">\n"
    "Please help."
)


def test_a_refund_arrives_is_approved_and_the_run_completes(
    page: Page, dev_stack: DevStack, store: Engine
) -> None:
    problems = watch_console(page)
    sign_in(page, dev_stack, "alice")
    case = add_case(store)
    start_run(dev_stack, case)

    card = page.locator(f'li[data-run-id="{case.run_id}"]')
    expect(card).to_be_visible(timeout=ARRIVAL_TIMEOUT_MS)  # htmx polling, no reload
    expect(card).to_contain_text(f"Refund 60.00 EUR on order {case.order_id}")
    screenshot(page, "inbox.png")

    card.get_by_role("link").click()
    expect(page.locator("#ticket-text")).to_contain_text("the lamp is broken")
    expect(page.locator("#amount")).to_have_text("60.00 EUR")
    expect(page.locator("#paid")).to_have_text("60.00 EUR")
    expect(page.locator("#no-prior-refunds")).to_be_visible()
    screenshot(page, "detail.png")

    page.get_by_role("button", name="Approve refund of 60.00 EUR").click()
    expect(page.get_by_role("status")).to_contain_text("Approved.")

    page.goto(f"{dev_stack.ui_url}/runs/{case.run_id}")
    expect(page.locator("#run-status")).to_have_text("completed", timeout=ARRIVAL_TIMEOUT_MS)
    expect(page.locator("table.decisions")).to_contain_text("alice")
    expect(page.locator("#outcome")).to_contain_text(f"refund 60.00 EUR on order {case.order_id}")
    screenshot(page, "timeline.png")
    assert problems == []


def test_hostile_ticket_is_shown_as_text_and_nothing_runs(
    page: Page, dev_stack: DevStack, store: Engine
) -> None:
    problems = watch_console(page)
    case = add_case(store, text=HOSTILE_TEXT)
    start_run(dev_stack, case)
    sign_in(page, dev_stack, "bob")
    expect(page.locator(f'li[data-run-id="{case.run_id}"]')).to_be_visible(
        timeout=ARRIVAL_TIMEOUT_MS
    )
    page.goto(f"{dev_stack.ui_url}/approvals/{case.run_id}")
    ticket = page.locator("#ticket-text")
    expect(ticket).to_contain_text("<script>window.__pwned = 'script'</script>")
    expect(ticket).to_contain_text("<img src=x onerror=")
    assert ticket.locator("script, img").count() == 0
    assert page.evaluate("() => window.__pwned === undefined")
    screenshot(page, "detail-hostile-ticket.png")

    page.get_by_label("Category (required)").select_option("suspected_fraud")
    page.get_by_label("Reason for rejecting (required)").fill("Suspicious ticket")
    page.get_by_role("button", name="Reject").click()
    expect(page.get_by_role("status")).to_contain_text("Rejected.")
    assert page.evaluate("() => window.__pwned === undefined")
    assert problems == []
