"""The decision page in Chromium, by keyboard (issue 44 §4): r, e, s and a move the focus
to the rejection, the changes, the answer to the agent and the Approve button of the
request (each control names its key in aria-keyshortcuts), and decide nothing by
themselves: Enter on the Approve button approves, as a click does, and the refund is
made once. A key typed in the note is the note's; ? lists the keys in a dialog axe-core
finds clean, Escape closes it; i goes back to the inbox. Under the page's own CSP (the
keys are a file under /static). On the dev stack: the page reads the run from Temporal."""

from __future__ import annotations

import time

import pytest
from playwright.sync_api import Browser, Page, Request, expect
from sqlalchemy import Engine

from activities.store import list_refunds
from tests.ui.axe import axe_violations
from tests.ui.browser import new_page, sign_in, watch_console
from tests.ui.conftest import DevStack, RefundCase
from tests.ui.test_browser_french_edit import open_in_french

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


def test_s_goes_to_the_answer_to_the_agent_and_sends_nothing(
    browser: Browser, page: Page, dev_stack: DevStack, pending_case: RefundCase
) -> None:
    """s is respond's key: it lands in the request's answer box (the key itself is not
    typed there); the words are the reviewer's to send, with the button or Enter on it."""
    problems = watch_console(page)
    posts: list[str] = []

    def on_request(request: Request) -> None:
        if request.method == "POST":
            posts.append(request.url)

    sign_in(page, dev_stack, "bob")
    page.goto(f"{dev_stack.ui_url}/approvals/{pending_case.run_id}")
    page.on("request", on_request)
    answer = page.get_by_label("Or answer the agent instead")
    expect(answer).to_have_attribute("aria-keyshortcuts", "S")
    blur(page)
    page.keyboard.press("s")
    expect(answer).to_be_focused()
    expect(answer).to_have_value("")
    page.keyboard.type("check the tracking first")  # typing now: s, a, r, e are letters
    expect(answer).to_have_value("check the tracking first")
    expect(answer).to_be_focused()
    assert posts == []  # nothing was sent
    expect(page.get_by_role("button", name="Send to the agent")).to_be_visible()

    blur(page)
    page.keyboard.press("?")
    help_list = page.get_by_role("dialog", name="Keyboard shortcuts")
    expect(help_list).to_contain_text("Go to the answer to the agent")
    page.keyboard.press("Escape")
    assert problems == []

    for french in new_page(browser, locale="fr-FR"):  # Chromium's Accept-Language
        open_in_french(french, dev_stack, pending_case)
        french.keyboard.press("?")
        aide = french.get_by_role("dialog", name="Raccourcis clavier")
        expect(aide).to_contain_text("Aller à la réponse à l’agent")
        french.keyboard.press("Escape")
        french.keyboard.press("s")
        expect(french.get_by_label("Ou répondez plutôt à l’agent")).to_be_focused()
    assert posts == []
