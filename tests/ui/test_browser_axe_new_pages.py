"""axe-core on the reviewer pages added beside the decision page, at 1280 px (desktop)
and 375 px (phone): the batch review and its results, the Slack account link, an
e-mail link's confirmation, the language choice, and a run's live page. Each is
opened as a reviewer reaches it, signed in, with its disclosures open.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, Page, expect
from sqlalchemy import Engine

from signoff.config.settings import Settings
from signoff.service.email_links import decision_link
from tests.ui.axe import axe_violations
from tests.ui.browser import new_page, sign_in, watch_console
from tests.ui.conftest import DevStack, RefundCase, wait_until_pending

pytestmark = [pytest.mark.devserver, pytest.mark.browser]
WIDE = {"width": 1280, "height": 900}
PHONE = {"width": 375, "height": 800}


@pytest.fixture
def axe_page(browser: Browser) -> Iterator[Page]:
    # bypass_csp: axe-core is injected as a script, which the UI's CSP forbids.
    yield from new_page(browser, viewport=WIDE, bypass_csp=True)


def violations(page: Page, name: str) -> list[str]:
    """axe's findings on the open page at both widths, each line named by its page."""
    for disclosure in page.locator("details:not([open])").all():
        disclosure.locator("summary").click()
    page.set_viewport_size(WIDE)
    found = [f"{name} @1280: {line}" for line in axe_violations(page)]
    page.set_viewport_size(PHONE)
    found += [f"{name} @375: {line}" for line in axe_violations(page)]
    page.set_viewport_size(WIDE)
    return found


def test_the_new_pages_pass_axe_on_desktop_and_phone(
    axe_page: Page,
    dev_stack: DevStack,
    store: Engine,
    app_settings: Settings,
    pending_case: RefundCase,
) -> None:
    page = axe_page
    problems = watch_console(page)
    action_hash = wait_until_pending(dev_stack, pending_case)
    sign_in(page, dev_stack, "alice")
    found: list[str] = []

    url, _ = decision_link(
        store, app_settings, "alice", pending_case.run_id, action_hash, "approve"
    )
    page.goto(f"{dev_stack.ui_url}/decide/{url.rsplit('/', 1)[1]}")
    expect(page.locator("#decide-confirm")).to_be_visible()
    found += violations(page, "e-mail link")

    page.goto(f"{dev_stack.ui_url}/approvals")
    page.get_by_label(f"Select Refund 60.00 EUR on order {pending_case.order_id}").check()
    page.get_by_role("button", name="Decide the selected requests…").click()
    expect(page.get_by_role("heading", name="Decide several at once")).to_be_visible()
    found += violations(page, "batch review")
    page.get_by_label("Reason, for every request").fill("Checked with the customer.")
    page.get_by_label("Category, to reject").select_option("other")
    page.get_by_role("button", name="Reject all 1").click()
    expect(page.locator("table.batch-results tbody tr")).to_have_count(1)
    found += violations(page, "batch results")

    page.goto(f"{dev_stack.ui_url}/runs/{pending_case.run_id}")
    expect(page.get_by_role("heading", level=1)).to_contain_text(pending_case.ticket_id)
    found += violations(page, "run page")

    page.goto(f"{dev_stack.ui_url}/slack/link")
    expect(page.locator("#slack-title")).to_be_visible()
    found += violations(page, "slack link")

    page.goto(f"{dev_stack.ui_url}/language")
    expect(page.locator("#language-title")).to_be_visible()
    found += violations(page, "language")

    assert (found, problems) == ([], [])
