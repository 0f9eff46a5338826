"""The reviewer's path in a real browser: Debian's Chromium, headless, driven by Playwright.

No browser is downloaded: Playwright launches /usr/bin/chromium (installed by
scripts/ensure-system-packages.sh). Screenshots of the inbox and the detail page go to
test-artifacts/ (gitignored) for a person to look at.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, ConsoleMessage, Page, expect, sync_playwright
from sqlalchemy import Engine

from tests.ui.conftest import DevStack, add_case, start_run

pytestmark = pytest.mark.devserver

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
    "--disable-sync",
]
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"
ARRIVAL_TIMEOUT_MS = 30_000
HOSTILE_TEXT = (
    "My parcel arrived damaged.\n"
    "<script>window.__pwned = 'script'</script>\n"
    "<img src=x onerror=\"window.__pwned = 'img'\">\n"
    "Please help."
)


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    if not Path(CHROMIUM).exists():
        pytest.fail(f"{CHROMIUM} is missing: run scripts/ensure-system-packages.sh", pytrace=False)
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield launched
        launched.close()


@pytest.fixture
def page(browser: Browser) -> Iterator[Page]:
    context = browser.new_context(viewport={"width": 1100, "height": 900})
    opened = context.new_page()
    yield opened
    context.close()


def watch_console(page: Page) -> list[str]:
    problems: list[str] = []

    def on_console(message: ConsoleMessage) -> None:
        if message.type == "error":
            problems.append(message.text)

    page.on("console", on_console)
    page.on("pageerror", lambda error: problems.append(str(error)))
    page.on("dialog", lambda dialog: problems.append(f"dialog: {dialog.message}"))
    return problems


def sign_in(page: Page, stack: DevStack, name: str) -> None:
    page.goto(f"{stack.ui_url}/approvals")
    expect(page).to_have_url(f"{stack.ui_url}/signin?next=/approvals")
    page.get_by_label("Reviewer name").fill(name)
    page.get_by_label("Password").fill(f"demo-{name}")
    page.get_by_role("button", name="Sign in").click()
    expect(page).to_have_url(f"{stack.ui_url}/approvals")


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
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "inbox.png"), full_page=True)

    card.get_by_role("link").click()
    expect(page.locator("#ticket-text")).to_contain_text("the lamp is broken")
    expect(page.locator("#amount")).to_have_text("60.00 EUR")
    expect(page.locator("#paid")).to_have_text("60.00 EUR")
    expect(page.locator("#no-prior-refunds")).to_be_visible()
    page.screenshot(path=str(ARTIFACTS / "detail.png"), full_page=True)

    page.get_by_role("button", name="Approve refund of 60.00 EUR").click()
    expect(page.get_by_role("status")).to_contain_text("Approved.")

    page.goto(f"{dev_stack.ui_url}/runs/{case.run_id}")
    deadline = time.monotonic() + 30
    while page.locator("#run-status").inner_text() != "completed":
        assert time.monotonic() < deadline, page.content()
        page.wait_for_timeout(300)
        page.reload()
    expect(page.locator("table.decisions")).to_contain_text("alice")
    expect(page.locator("#outcome")).to_contain_text(f"refund 60.00 EUR on order {case.order_id}")
    page.screenshot(path=str(ARTIFACTS / "timeline.png"), full_page=True)
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
    page.screenshot(path=str(ARTIFACTS / "detail-hostile-ticket.png"), full_page=True)

    page.get_by_label("Reason for rejecting (required)").fill("Suspicious ticket")
    page.get_by_role("button", name="Reject").click()
    expect(page.get_by_role("status")).to_contain_text("Rejected.")
    assert page.evaluate("() => window.__pwned === undefined")
    assert problems == []
