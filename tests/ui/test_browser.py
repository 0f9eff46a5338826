"""The reviewer's path in a real browser (see tests/ui/browser.py): a refund arrives
without reload, is opened, approved, and the run's timeline shows the decision; a
hostile ticket is shown as text and nothing in it runs; a box ticked while the list
refreshes stays ticked."""

from __future__ import annotations

import time

import pytest
from playwright.sync_api import Page, Route, expect
from sqlalchemy import Engine

from tests.ui.browser import ARRIVAL_TIMEOUT_MS, screenshot, sign_in, watch_console
from tests.ui.conftest import DevStack, add_case, start_run, wait_until_pending

pytestmark = pytest.mark.devserver
# Counts the inbox's refreshed lists swapped in from now on.
COUNT_REFRESHES = """() => { window.inboxRefreshes = 0;
  document.body.addEventListener("htmx:afterSwap", event => {
    if (event.detail.target.id === "inbox") window.inboxRefreshes++; }); }"""

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


def test_a_box_ticked_while_the_list_refreshes_stays_ticked(
    page: Page, dev_stack: DevStack, store: Engine
) -> None:
    """A refresh carries the boxes ticked when it left; one ticked (or unticked) while
    that refresh is on its way must not be undone when its answer swaps in."""
    problems = watch_console(page)
    first, second = add_case(store), add_case(store)
    for case in (first, second):
        start_run(dev_stack, case)
        wait_until_pending(dev_stack, case)
    sign_in(page, dev_stack, "alice")
    page.goto(f"{dev_stack.ui_url}/approvals")
    first_box = page.locator(f'li[data-run-id="{first.run_id}"] input[name="selected"]')
    second_box = page.locator(f'li[data-run-id="{second.run_id}"] input[name="selected"]')
    expect(second_box).to_be_visible(timeout=ARRIVAL_TIMEOUT_MS)
    first_box.check()

    held: list[Route] = []

    def hold(route: Route) -> None:  # the first refresh from now on waits; any other goes
        if held:
            route.continue_()
        else:
            held.append(route)

    page.route("**/approvals/rows*", hold)
    deadline = time.monotonic() + 30
    while not held:  # the next refresh has left with only the first box ticked
        assert time.monotonic() < deadline, "the inbox never refreshed"
        page.wait_for_timeout(100)
    page.evaluate(COUNT_REFRESHES)
    second_box.check()
    first_box.uncheck()
    held[0].continue_()
    page.wait_for_function("() => window.inboxRefreshes > 0")
    page.unroute("**/approvals/rows*", hold)

    expect(second_box).to_be_checked()
    expect(first_box).not_to_be_checked()
    expect(page.locator("#batch-summary")).to_contain_text("1 request selected")
    assert problems == []
