"""The decision page in Chromium, by keyboard (issue 44 §4): r, e and a move the focus to
the rejection, the changes and the Approve button of the request (each control names
its key in aria-keyshortcuts), and decide nothing by themselves: Enter on the Approve
button approves, as a click does, and the refund is made once. A key typed in the note
is the note's; ? lists the keys in a dialog axe-core finds clean, Escape closes it; i
goes back to the inbox. Under the page's own CSP (the keys are a file under /static).
On the dev stack: the page reads the run from Temporal."""

from __future__ import annotations

import time

import pytest
from playwright.sync_api import Browser, Page, Request, expect
from sqlalchemy import Engine

from activities.store import list_refunds
from tests.ui.axe import axe_violations
from tests.ui.browser import new_page, sign_in, watch_console
from tests.ui.conftest import DevStack, RefundCase

pytestmark = [pytest.mark.devserver, pytest.mark.browser]
SETTLE_SECONDS = 30
APPROVE = "Approve refund of 60.00 EUR"


def blur(page: Page) -> None:
    page.evaluate("document.activeElement.blur()")


def test_keys_reach_the_decision_and_enter_approves(
    page: Page, dev_stack: DevStack, store: Engine, pending_case: RefundCase
) -> None:
    problems = watch_console(page)
    posts: list[str] = []

    def on_request(request: Request) -> None:
        if request.method == "POST":
            posts.append(request.url)

    sign_in(page, dev_stack, "bob")
    page.goto(f"{dev_stack.ui_url}/approvals/{pending_case.run_id}")
    page.on("request", on_request)
    approve = page.get_by_role("button", name=APPROVE)
    category = page.get_by_label("Category (required)")
    amount = page.get_by_label("Amount to refund instead (EUR, at most 60.00)")
    expect(approve).to_have_attribute("aria-keyshortcuts", "A")
    expect(category).to_have_attribute("aria-keyshortcuts", "R")
    expect(amount).to_have_attribute("aria-keyshortcuts", "E")

    # In a text field the keys are letters of the note.
    note = page.get_by_label("Note (optional)")
    note.focus()
    page.keyboard.type("are")
    expect(note).to_have_value("are")
    expect(note).to_be_focused()
    note.fill("")

    blur(page)
    page.keyboard.press("r")
    expect(category).to_be_focused()
    blur(page)
    page.keyboard.press("e")
    expect(amount).to_be_focused()
    blur(page)
    page.keyboard.press("Alt+a")  # a modifier: not the page's key
    expect(approve).not_to_be_focused()

    help_list = page.get_by_role("dialog", name="Keyboard shortcuts")
    page.keyboard.press("?")
    expect(help_list).to_be_visible()
    expect(help_list).to_contain_text("Go to the Approve button")
    page.keyboard.press("Escape")
    expect(help_list).to_be_hidden()

    blur(page)
    page.keyboard.press("a")
    expect(approve).to_be_focused()
    assert posts == []  # the key moved the focus; nothing was decided
    assert list_refunds(store, pending_case.tenant_id, pending_case.order_id) == []

    page.keyboard.press("Enter")
    expect(page.get_by_role("status")).to_contain_text("Approved.")
    assert len(posts) == 1
    deadline = time.monotonic() + SETTLE_SECONDS
    while not list_refunds(store, pending_case.tenant_id, pending_case.order_id):
        assert time.monotonic() < deadline, "the approved refund was never made"
        time.sleep(0.3)
    (refund,) = list_refunds(store, pending_case.tenant_id, pending_case.order_id)
    assert refund.approver_list == ["bob"]

    blur(page)
    page.keyboard.press("i")
    expect(page).to_have_url(f"{dev_stack.ui_url}/approvals")
    assert problems == []


def test_the_list_of_keys_is_clean_for_axe(
    browser: Browser, dev_stack: DevStack, pending_case: RefundCase
) -> None:
    # bypass_csp: axe-core is injected as a script, which the UI's CSP forbids; the test
    # above runs under the CSP, so the keys' script is known to load without this.
    for page in new_page(browser, bypass_csp=True):
        sign_in(page, dev_stack, "bob")
        page.goto(f"{dev_stack.ui_url}/approvals/{pending_case.run_id}")
        page.keyboard.press("?")
        expect(page.get_by_role("dialog", name="Keyboard shortcuts")).to_be_visible()
        assert axe_violations(page) == []
