"""The inbox in Chromium, faster by hand (issue 44 §4): j and k move the focus from one
request to the next and back, o opens the one in focus, a key held with Ctrl or Alt or
typed in a select does nothing, ? opens the list of keys (a dialog axe-core finds
clean) and Escape closes it, giving the focus back. Notifications of new requests are
the reviewer's choice: nothing is asked when the page loads, the button asks, and then
a request that arrives raises one, naming it; the tab's title counts the requests
waiting as they arrive.

Served on a seeded store (the inbox reads the store's read model, no Temporal), its
list polled every second; a request arrives by a row written into the store, as the
worker's read model would. window.Notification is wrapped by an init script that
records what the page asks and shows, and Chromium's context grants the permission
(headless Chromium shows no prompt)."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, expect
from sqlalchemy import Engine

from activities.store import write_transaction
from activities.store.schema import Ticket
from activities.store.waiting_actions import new_row
from approvals_ui.main import create_app
from signoff.config.settings import Settings
from signoff.service.handles import Store
from tests.conftest import fresh_demo_store
from tests.live_ui import served
from tests.ui.axe import axe_violations
from tests.ui.browser import ARRIVAL_TIMEOUT_MS, new_page, watch_console
from tests.ui.test_browser_inbox_cards import sign_in
from tests.ui.test_inbox_cards import customer_of, fill, run_of, waiting, words_of
from tests.ui.test_waiting_tenants import unreachable_connect

pytestmark = pytest.mark.browser
FIRST_WAITING = 2
POLL_SECONDS = 1  # the list's refresh, so that an arrival shows within a test's wait
TITLE = "({count}) Inbox · signoff reviewer"
QUIET_POLLS = 2
PHONE = {"width": 375, "height": 812}
NO_TEMPORAL = (
    "Failed to load resource: the server responded with a status of 503 (Service Unavailable)"
)
# Resolves once the list has been swapped in `n` more times (notify.js, listening since
# the page loaded, has then looked at each).
AFTER_POLLS = """n => new Promise(done => {
  document.addEventListener("htmx:afterSwap", event => {
    if (event.detail.target.id === "inbox" && --n === 0) done();
  });
})"""

# Records each permission asked and each notification shown, in the page's own
# window.Notification, before any of the page's scripts runs.
WATCH_NOTIFICATIONS = """(() => {
  const Real = window.Notification;
  window.signoffAsked = 0;
  window.signoffShown = [];
  class Watched extends Real {
    constructor(title, options) {
      window.signoffShown.push({title: title, body: (options || {}).body || ""});
      super(title, options);
    }
  }
  Object.defineProperty(Watched, "permission", {get: () => Real.permission});
  Watched.requestPermission = (...given) => {
    window.signoffAsked += 1;
    return Real.requestPermission(...given);
  };
  window.Notification = Watched;
})();"""


@pytest.fixture
def inbox(tmp_path: Path, demo_store_template: Path) -> Iterator[tuple[str, Engine]]:
    engine = fresh_demo_store(demo_store_template, tmp_path / "signoff.db")
    fill(engine, "demo", FIRST_WAITING)
    settings = Settings(home=tmp_path, ui_inbox_refresh_seconds=POLL_SECONDS)
    app = create_app(settings, temporal_connect=unreachable_connect, engine=Store(engine))
    with served(app) as url:
        yield url, engine
    engine.dispose()


@pytest.fixture
def watched(browser: Browser, inbox: tuple[str, Engine]) -> Iterator[Page]:
    """A page under the UI's own CSP (the scripts load as files of its own), its
    notifications permitted and recorded."""
    for page in new_page(browser):
        page.context.grant_permissions(["notifications"], origin=inbox[0])
        page.context.add_init_script(WATCH_NOTIFICATIONS)
        yield page


@pytest.fixture
def for_axe(browser: Browser) -> Iterator[Page]:
    # bypass_csp: axe-core is injected as a script, which the UI's CSP forbids.
    yield from new_page(browser, bypass_csp=True)


def arrive(engine: Engine, index: int) -> str:
    """A new waiting refund of demo, listed in the store as the worker lists one; the
    amount its card's title (and so its notification) names."""
    pending = waiting("demo", index)
    with write_transaction(engine) as session:
        session.add(
            Ticket(
                tenant_id="demo",
                id=f"T-CARD-{index}",
                order_id=None,
                customer_name=f"{customer_of(index)} demo",
                text=words_of("demo", index),
                created_at=datetime.now(UTC),
            )
        )
        session.add(
            new_row("demo", run_of("demo", index), f"T-CARD-{index}", pending, pending.requested_at)
        )
    return f"{pending.arguments['amount']} EUR"


def focused_id(page: Page) -> str:
    return str(page.evaluate("document.activeElement.id"))


def card_ids(page: Page) -> list[str]:
    return list(page.locator("li.card .card-title").evaluate_all("links => links.map(l => l.id)"))


def test_j_and_k_move_through_requests_and_o_opens_one(
    watched: Page, inbox: tuple[str, Engine]
) -> None:
    page, (url, _) = watched, inbox
    problems = watch_console(page)
    sign_in(page, url)
    cards = card_ids(page)
    assert len(cards) == FIRST_WAITING

    page.keyboard.press("j")
    assert focused_id(page) == cards[0]
    page.keyboard.press("j")
    assert focused_id(page) == cards[1]
    page.keyboard.press("j")  # the last stays in focus: there is no next
    assert focused_id(page) == cards[1]
    page.keyboard.press("k")
    assert focused_id(page) == cards[0]
    # A ticked box takes no typing: the keys go on from there.
    page.locator("li.card").nth(1).locator('input[name="selected"]').check()
    page.keyboard.press("k")
    assert focused_id(page) == cards[0]

    # With a modifier the key is the browser's, not the page's.
    page.keyboard.press("Alt+j")
    page.keyboard.press("Control+k")
    assert focused_id(page) == cards[0]
    # In a select, the key chooses an option there; the focus stays.
    page.get_by_label("Sort by").focus()
    page.keyboard.press("j")
    page.keyboard.press("o")
    expect(page.get_by_label("Sort by")).to_be_focused()
    expect(page).to_have_url(f"{url}/approvals")

    page.locator(f"#{cards[1]}").focus()
    target = page.locator(f"#{cards[1]}").get_attribute("href")
    page.keyboard.press("o")
    expect(page).to_have_url(f"{url}{target}")
    # The run page itself needs Temporal, which this inbox has not: its 503 is expected.
    assert problems == [NO_TEMPORAL], problems


def test_question_mark_lists_the_keys_and_escape_closes_the_list(
    for_axe: Page, inbox: tuple[str, Engine]
) -> None:
    page, (url, _) = for_axe, inbox
    problems = watch_console(page)
    sign_in(page, url)
    help_list = page.get_by_role("dialog", name="Keyboard shortcuts")
    expect(help_list).to_be_hidden()
    opener = page.get_by_role("button", name="Keyboard shortcuts")
    expect(opener).to_have_attribute("aria-keyshortcuts", "?")
    page.keyboard.press("j")
    card = focused_id(page)

    page.keyboard.press("?")
    expect(help_list).to_be_visible()
    expect(help_list).to_contain_text("Next request")
    expect(help_list).to_contain_text("Previous request")
    # Behind the open list the keys do nothing.
    page.keyboard.press("j")
    expect(help_list).to_be_visible()
    assert axe_violations(page) == []

    page.evaluate(AFTER_POLLS, 1)  # the list, the focused card with it, is swapped anew
    page.keyboard.press("Escape")
    expect(help_list).to_be_hidden()
    assert focused_id(page) == card

    opener.click()  # the button opens the same list, and Close closes it
    expect(help_list).to_be_visible()
    help_list.get_by_role("button", name="Close").click()
    expect(help_list).to_be_hidden()
    assert axe_violations(page) == []
    assert problems == []


def shown(page: Page) -> list[dict[str, Any]]:
    return list(page.evaluate("window.signoffShown"))


def test_notifications_are_asked_by_the_button_and_tell_of_a_new_request(
    watched: Page, inbox: tuple[str, Engine]
) -> None:
    page, (url, engine) = watched, inbox
    problems = watch_console(page)
    sign_in(page, url)
    expect(page).to_have_title(TITLE.format(count=FIRST_WAITING))
    toggle = page.get_by_role("button", name="Notify me of new requests")
    expect(toggle).to_have_attribute("aria-pressed", "false")
    expect(page.locator("#notify-status > :visible")).to_have_count(0)
    assert page.evaluate("window.signoffAsked") == 0  # nothing asked on page load

    # Not chosen yet: a request arrives, the title counts it, no notification.
    arrive(engine, FIRST_WAITING)
    expect(page).to_have_title(TITLE.format(count=FIRST_WAITING + 1), timeout=ARRIVAL_TIMEOUT_MS)
    expect(page.locator("li.card")).to_have_count(FIRST_WAITING + 1)
    assert shown(page) == []

    toggle.click()
    expect(toggle).to_have_attribute("aria-pressed", "true")
    said = page.locator("#notify-status > :visible")
    expect(said).to_have_text(
        "On: while this inbox is open in a tab, this browser tells you of each new request"
        " you can decide."
    )
    assert page.evaluate("window.signoffAsked") == 1

    amount = arrive(engine, FIRST_WAITING + 1)
    expect(page).to_have_title(TITLE.format(count=FIRST_WAITING + 2), timeout=ARRIVAL_TIMEOUT_MS)
    page.wait_for_function("window.signoffShown.length > 0", timeout=ARRIVAL_TIMEOUT_MS)
    told = shown(page)
    assert len(told) == 1, told
    assert told[0]["title"] == "A new request waits for your decision"
    assert told[0]["body"] == f"Refund {amount} on order X-1"

    # Polls that bring nothing new tell nothing more; the choice outlives a reload.
    page.reload()
    expect(toggle).to_have_attribute("aria-pressed", "true")
    page.evaluate(AFTER_POLLS, QUIET_POLLS)
    assert shown(page) == []
    assert problems == []


def test_a_touch_screen_is_offered_neither(browser: Browser, inbox: tuple[str, Engine]) -> None:
    for page in new_page(browser, viewport=PHONE, has_touch=True, is_mobile=True):
        sign_in(page, inbox[0])
        expect(page.locator("li.card")).to_have_count(FIRST_WAITING)
        expect(page.get_by_role("button", name="Keyboard shortcuts")).to_be_hidden()
        expect(page.get_by_role("button", name="Notify me of new requests")).to_be_hidden()
