"""Issue 14 in a real browser (see tests/ui/browser.py), on runs started as a person
starts them: default-generated request ids (32 hex digits), the run ids real reviewers
see. At 375 CSS px no page scrolls sideways: sign-in, inbox, the decision page with
prior refunds and four eyes, the run page, the audit and the error page. The decision
page reads in support terms, top to bottom: ticket, order, proposal, decision."""

from __future__ import annotations

import re
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import pytest
from playwright.sync_api import Browser, Page, expect
from sqlalchemy import Engine

from tests.ui.browser import new_page, screenshot, sign_in
from tests.ui.conftest import DevStack, RefundCase, add_case, wait_until_pending
from tests.ui.default_ids import (
    PRIOR_REFUND_REASON,
    add_prior_refund,
    decide_as,
    start_default_run,
)
from tests.ui.test_browser_access import NEXT_INBOX_SWAP

pytestmark = pytest.mark.devserver

PHONE = {"viewport": {"width": 375, "height": 740}, "is_mobile": True, "has_touch": True}
SCROLL_WIDTH = "() => document.documentElement.scrollWidth"
REJECT_REASON = "No photo of the damage"
FOUR_EYES_PAID_MINOR = 35_000  # above the 200.00 threshold: two reviewers


@dataclass(frozen=True)
class Cases:
    four_eyes: RefundCase  # alice approved once; a prior refund on the order since
    rejected: RefundCase  # bob rejected it: the run ends, the audit has the row


@pytest.fixture(scope="module")
def cases(dev_stack: DevStack, store: Engine) -> Cases:
    four_eyes, rejected = add_case(store), add_case(store)
    with store.begin() as connection:
        connection.exec_driver_sql(
            "UPDATE orders SET amount_paid_minor = ? WHERE id = ?",
            (FOUR_EYES_PAID_MINOR, four_eyes.order_id),
        )
    with ThreadPoolExecutor() as pool:
        four_eyes, rejected = pool.map(
            lambda case: start_default_run(dev_stack, case), (four_eyes, rejected)
        )
    decide_as(
        dev_stack, four_eyes, wait_until_pending(dev_stack, four_eyes), "approve", "alice", ""
    )
    add_prior_refund(store, four_eyes)
    decide_as(
        dev_stack, rejected, wait_until_pending(dev_stack, rejected), "reject", "bob", REJECT_REASON
    )
    return Cases(four_eyes, rejected)


@pytest.fixture
def phone(browser: Browser) -> Iterator[Page]:
    yield from new_page(browser, **PHONE)


def fits(page: Page, name: str) -> list[str]:
    screenshot(page, name)
    width = page.evaluate(SCROLL_WIDTH)
    return [] if width <= PHONE["viewport"]["width"] else [f"{page.url}: {width} px wide"]  # type: ignore[index]


def test_no_page_scrolls_sideways_on_a_phone_with_real_ids(
    phone: Page, dev_stack: DevStack, cases: Cases
) -> None:
    phone.goto(f"{dev_stack.ui_url}/signin")
    problems = fits(phone, "phone-ids-signin.png")
    sign_in(phone, dev_stack, "bob")
    expect(phone.locator(f'li[data-run-id="{cases.four_eyes.run_id}"]')).to_be_visible()
    problems += fits(phone, "phone-ids-inbox.png")
    # The count is in the title, and each poll sets it again (a background tab shows it).
    waiting = phone.locator("#inbox-count").inner_text().split()[0]
    phone.evaluate("document.title = 'stale'")
    phone.evaluate(NEXT_INBOX_SWAP)
    assert phone.title().startswith(f"({waiting}) Inbox"), phone.title()
    # Times say UTC; the reviewer's local time is in the tooltip.
    expect(phone.locator("time.utc").first).to_have_attribute("title", re.compile("local time"))
    phone.goto(f"{dev_stack.ui_url}/approvals/{cases.four_eyes.run_id}")
    expect(phone.locator("#four-eyes-1")).to_contain_text("Already approved by alice")
    expect(phone.locator("table.refunds")).to_contain_text(PRIOR_REFUND_REASON)
    for disclosure in phone.locator("details").all():  # opened, they must fit too
        disclosure.locator("summary").click()
    problems += fits(phone, "phone-ids-detail.png")
    phone.goto(f"{dev_stack.ui_url}/runs/{cases.rejected.run_id}")
    expect(phone.locator("#run-status")).to_have_text("completed")
    phone.locator("#run-details summary").click()
    problems += fits(phone, "phone-ids-run.png")
    phone.goto(f"{dev_stack.ui_url}/audit")
    expect(phone.locator("table.audit")).to_contain_text(REJECT_REASON)
    problems += fits(phone, "phone-ids-audit.png")
    phone.goto(f"{dev_stack.ui_url}/approvals/run-demo-{'0' * 32}")
    expect(phone.locator("p.refusal")).to_be_visible()
    problems += fits(phone, "phone-ids-error.png")
    assert not problems, "\n".join(problems)


def test_the_decision_page_reads_ticket_order_proposal_then_decision(
    page: Page, dev_stack: DevStack, cases: Cases
) -> None:
    case = cases.four_eyes
    sign_in(page, dev_stack, "bob")
    page.goto(f"{dev_stack.ui_url}/approvals/{case.run_id}")
    title = f"Refund 350.00 EUR to Kim Test, order {case.order_id}"
    expect(page.locator("h1")).to_have_text(title)
    assert page.title().startswith(title)
    expect(page.locator("#decision-subtitle")).to_contain_text(f"Ticket {case.ticket_id}")
    expect(page.locator("#decision-subtitle .countdown")).to_contain_text("left")
    # The run id and the hashes are not on show; they wait in "Technical details".
    technical = page.locator("#technical-details")
    expect(technical).not_to_have_attribute("open", "")
    assert case.run_id not in page.locator("main").inner_text()
    technical.locator("summary").click()
    expect(technical).to_contain_text(case.run_id)
    action_hash = page.locator('input[name="action_hash"]').first.get_attribute("value")
    expect(technical).to_contain_text(action_hash or "no hash in the form")
    expect(technical).to_contain_text("Policy version")
    expect(technical).to_contain_text("State hash")

    tops = page.evaluate(
        """() => ["#ticket-text", "#order", "table.refunds", "section.action blockquote.agent",
                  "#four-eyes-1", 'button[name="approve"]']
          .map(selector => document.querySelector(selector).getBoundingClientRect().top)"""
    )
    assert tops == sorted(tops), tops  # ticket, order, prior refunds, reason, four eyes, buttons
    refund_row = page.locator("table.refunds tbody tr").first
    for text in ("10.00 EUR", "bob", PRIOR_REFUND_REASON):
        expect(refund_row).to_contain_text(text)
    expect(page.locator("#four-eyes-1")).to_contain_text("second, different reviewer")
    # The prior refund landed after the request was judged: the page says what that means.
    expect(page.locator("#order-changed")).to_contain_text("10.00 EUR is refunded now")

    trajectory = page.locator("#trajectory")
    trajectory.locator("summary").click()
    expect(trajectory).to_contain_text("The model asked for read_ticket")
    expect(trajectory).to_contain_text("from customer ticket, unverified free text")
    expect(trajectory).to_contain_text("the lamp is broken")
    expect(trajectory).to_contain_text("No result yet: it waits for a reviewer's decision")
    screenshot(page, "detail-four-eyes-trajectory.png")
