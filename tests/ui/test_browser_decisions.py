"""Deciding in a real browser (see tests/ui/browser.py): a rejection needs a reason and
ends the run without a refund; a page opened before the order changed offers a hash
that went void, and its Approve is refused in plain words with the new version shown."""

from __future__ import annotations

import time

import pytest
from playwright.sync_api import Page, Request, expect
from sqlalchemy import Engine

from activities.store import demo_password, list_refunds
from tests.ui.browser import ARRIVAL_TIMEOUT_MS, screenshot, sign_in, watch_console
from tests.ui.conftest import (
    DevStack,
    add_case,
    change_order_meanwhile,
    start_run,
    wait_until_pending,
)

pytestmark = pytest.mark.devserver
SETTLE_SECONDS = 30
REJECT_REASON = "The photo of the broken lamp is missing."
STALE_MESSAGE = "This request changed since you opened it; review the new version."
# A refused decision comes back as 409 on purpose (the route tests pin it), and Chromium
# logs any 4xx page as a console error: that one line per refusal is expected, and any
# other line (a script error, a CSP violation) fails the test.
REFUSED_PAGE = "Failed to load resource: the server responded with a status of 409 (Conflict)"


def test_reject_needs_a_reason_then_ends_the_run_without_refund(
    page: Page, dev_stack: DevStack, store: Engine
) -> None:
    problems = watch_console(page)
    posts: list[str] = []

    def on_request(request: Request) -> None:
        if request.method == "POST":
            posts.append(request.url)

    page.on("request", on_request)
    case = add_case(store)
    start_run(dev_stack, case)
    action_hash = wait_until_pending(dev_stack, case)
    sign_in(page, dev_stack, "bob")
    detail_url = f"{dev_stack.ui_url}/approvals/{case.run_id}"
    page.goto(detail_url)
    reason = page.get_by_label("Reason for rejecting (required)")
    reject = page.get_by_role("button", name="Reject")
    posts.clear()  # the sign-in form's post

    # An empty reason: the browser's own validation keeps the form from being sent.
    reject.click()
    assert reason.evaluate("textarea => textarea.validity.valueMissing")
    page.wait_for_timeout(300)
    assert posts == []
    expect(page).to_have_url(detail_url)
    expect(page.get_by_role("status")).to_have_count(0)

    # Blanks pass the browser's check; the workflow's validator refuses them.
    page.get_by_label("Category (required)").select_option("not_eligible")
    reason.fill("   ")
    reject.click()
    expect(page.locator("p.refusal")).to_have_text("A reason is required to reject.")
    assert wait_until_pending(dev_stack, case) == action_hash  # still waiting

    page.get_by_label("Category (required)").select_option("not_eligible")
    page.get_by_label("Reason for rejecting (required)").fill(REJECT_REASON)
    page.get_by_role("button", name="Reject").click()
    expect(page.get_by_role("status")).to_contain_text("Rejected.")
    expect(page.locator("#nothing-pending")).to_be_visible()

    page.goto(f"{dev_stack.ui_url}/runs/{case.run_id}")
    deadline = time.monotonic() + SETTLE_SECONDS
    while page.locator("#run-status").inner_text() != "completed":
        assert time.monotonic() < deadline, page.content()
        page.wait_for_timeout(300)
        page.reload()
    row = page.locator("table.decisions tbody tr", has_text="rejected")
    expect(row).to_have_count(1)
    expect(row).to_contain_text("bob")
    expect(row).to_contain_text(f"not eligible: {REJECT_REASON}")
    expect(row.locator("code")).to_have_attribute("title", action_hash)
    assert list_refunds(store, case.tenant_id, case.order_id) == []
    assert problems == [REFUSED_PAGE]


def test_a_stale_hash_is_refused_in_plain_words_and_the_new_version_offered(
    page: Page, dev_stack: DevStack, store: Engine
) -> None:
    problems = watch_console(page)
    case = add_case(store)
    start_run(dev_stack, case)
    old_hash = wait_until_pending(dev_stack, case)
    sign_in(page, dev_stack, "bob")
    page.goto(f"{dev_stack.ui_url}/approvals/{case.run_id}")
    expect(page.locator("section.action")).to_have_attribute(
        "data-action-hash", old_hash, timeout=ARRIVAL_TIMEOUT_MS
    )

    change_order_meanwhile(store, case)  # while bob reads
    approved = dev_stack.signoff(
        "approve",
        case.run_id,
        "--hash",
        old_hash,
        "--as",
        "alice",
        "--password-stdin",
        stdin=demo_password("alice") + "\n",
    )
    assert approved.returncode == 0, approved.stderr
    deadline = time.monotonic() + SETTLE_SECONDS
    while (new_hash := wait_until_pending(dev_stack, case)) == old_hash:
        assert time.monotonic() < deadline
        time.sleep(0.3)

    page.get_by_role("button", name="Approve refund of 60.00 EUR").click()
    expect(page.locator("p.refusal")).to_have_text(STALE_MESSAGE)
    expect(page.get_by_role("alert")).to_have_text(STALE_MESSAGE)
    action = page.locator("section.action")
    expect(action).to_have_count(1)
    expect(action).to_have_attribute("data-action-hash", new_hash)
    expect(action).to_contain_text("replaces an earlier one whose approval went void")
    for hash_field in action.locator('input[name="action_hash"]').all():
        expect(hash_field).to_have_value(new_hash)
    # The refund that landed meanwhile is shown as a prior refund: amount and approvers.
    (prior,) = page.locator("table.refunds tbody tr").all()
    expect(prior).to_contain_text("10.00 EUR")
    expect(prior).to_contain_text("bob")
    expect(page.locator("#paid")).to_have_text("70.00 EUR")
    screenshot(page, "detail-stale-hash.png")

    ledger = list_refunds(store, case.tenant_id, case.order_id)
    assert [(row.amount_minor, row.run_id) for row in ledger] == [(1000, "manual")]
    assert old_hash not in {row.action_hash for row in ledger}
    assert wait_until_pending(dev_stack, case) == new_hash  # bob's click decided nothing
    assert problems == [REFUSED_PAGE]


def test_a_refund_decided_by_someone_else_leaves_the_inbox_without_reload(
    page: Page, dev_stack: DevStack, store: Engine
) -> None:
    problems = watch_console(page)
    case = add_case(store)
    start_run(dev_stack, case)
    action_hash = wait_until_pending(dev_stack, case)
    sign_in(page, dev_stack, "alice")
    card = page.locator(f'li[data-run-id="{case.run_id}"]')
    expect(card).to_be_visible(timeout=ARRIVAL_TIMEOUT_MS)
    page.evaluate("() => { window.__sameDocument = true; }")  # gone after a reload
    count = page.locator("#inbox-count")
    before = count.inner_text()
    # The count's live region must stay the same element for a change to be announced.
    count.evaluate("element => { element.__same = true; }")

    approved = dev_stack.signoff(
        "approve",
        case.run_id,
        "--hash",
        action_hash,
        "--as",
        "bob",
        "--password-stdin",
        stdin=demo_password("bob") + "\n",
    )
    assert approved.returncode == 0, approved.stderr
    expect(card).to_have_count(0, timeout=ARRIVAL_TIMEOUT_MS)  # htmx polling
    assert page.evaluate("() => window.__sameDocument === true")
    expect(count).not_to_have_text(before)
    assert count.evaluate("element => element.__same === true")
    assert page.locator("[id=inbox-count]").count() == 1
    assert problems == []
