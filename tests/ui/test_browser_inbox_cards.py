"""The inbox in Chromium with more requests than a screen holds, at 1280 and 375 px: each
card names its customer and the order's figures; the batch bar (what is ticked, and the
button to decide it) stays on screen while the list scrolls, covers no control reached
with the keyboard nor the last card, and nothing scrolls sideways; the batch page then
shows each customer's own words, boxed. Served on a seeded store (the inbox and the batch
page read the store's read model, not Temporal); axe-core checks both pages."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Locator, Page, expect

from approvals_ui.main import create_app
from signoff.config.settings import Settings
from signoff.service.handles import Store
from tests.conftest import fresh_demo_store
from tests.live_ui import served
from tests.ui.axe import axe_violations
from tests.ui.browser import new_page, screenshot, watch_console
from tests.ui.test_inbox_cards import fill, waiting, words_of
from tests.ui.test_waiting_tenants import unreachable_connect

pytestmark = pytest.mark.browser
WIDTHS = {"desktop": {"width": 1280, "height": 800}, "phone": {"width": 375, "height": 812}}
WAITING = 12  # more cards than either screen holds


@pytest.fixture(scope="module")
def ui_url(tmp_path_factory: pytest.TempPathFactory, demo_store_template: Path) -> Iterator[str]:
    home: Path = tmp_path_factory.mktemp("inbox-cards")
    engine = fresh_demo_store(demo_store_template, home / "signoff.db")
    fill(engine, "demo", WAITING)
    app = create_app(
        Settings(home=home), temporal_connect=unreachable_connect, engine=Store(engine)
    )
    with served(app) as url:
        yield url
    engine.dispose()


@pytest.fixture(params=list(WIDTHS))
def screen(browser: Browser, request: pytest.FixtureRequest) -> Iterator[tuple[str, Page]]:
    # bypass_csp: axe-core is injected as a script, which the UI's CSP forbids.
    for page in new_page(browser, viewport=WIDTHS[request.param], bypass_csp=True):
        yield request.param, page


# Scrolls the page so that the element's middle is behind the batch bar's middle.
UNDER_THE_BAR = """element => {
  const bar = document.getElementById("batch-bar").getBoundingClientRect();
  const box = element.getBoundingClientRect();
  window.scrollBy(0, (box.top + box.height / 2) - (bar.top + bar.height / 2));
}"""


def sign_in(page: Page, url: str) -> None:
    page.goto(f"{url}/approvals")
    page.get_by_label("Reviewer name").fill("alice")
    page.get_by_label("Password").fill("demo-alice")
    page.get_by_role("button", name="Sign in").click()
    expect(page).to_have_url(f"{url}/approvals")


def on_screen(page: Page, locator: Locator) -> bool:
    box = locator.bounding_box()
    assert box is not None
    return 0 <= box["y"] and box["y"] + box["height"] <= page.viewport_size["height"]  # type: ignore[index]


def sideways(page: Page) -> int:
    return int(page.evaluate("document.documentElement.scrollWidth - window.innerWidth"))


def uncovered(page: Page, locator: Locator) -> bool:
    """Whether a click at the element's centre reaches it (nothing lies on top of it)."""
    return bool(
        locator.evaluate(
            """element => { const box = element.getBoundingClientRect();
            const top = document.elementFromPoint(box.x + box.width / 2, box.y + box.height / 2);
            return top !== null && (top === element || element.contains(top)
              || top.contains(element)); }"""
        )
    )


def test_the_batch_bar_stays_on_screen_and_the_cards_say_who_and_how_much(
    screen: tuple[str, Page], ui_url: str
) -> None:
    name, page = screen
    problems = watch_console(page)
    sign_in(page, ui_url)
    height = page.viewport_size["height"]  # type: ignore[index]
    cards = page.locator("ul.inbox > li.card")
    expect(cards).to_have_count(WAITING)
    first = cards.first
    expect(first.locator(".customer")).to_have_text("Customer Number 0 demo")
    expect(first.locator(".paid")).to_have_text("90.00 EUR")
    expect(first.locator(".refunded-before")).to_have_text("30.00 EUR")
    expect(first.locator(".card-title")).to_contain_text("10.00 EUR")

    # The list runs past the screen, and the bar's button is on it all the same.
    last_box = cards.last.bounding_box()
    assert last_box is not None and last_box["y"] > height
    button = page.get_by_role("button", name="Decide the selected requests…")
    assert on_screen(page, button)
    assert sideways(page) <= 0, f"{name}: {sideways(page)} px sideways"

    # A box down the list, lying under the bar, is scrolled clear of it when reached
    # with Tab from the card before it; ticking it is said in the bar's summary.
    index = next(
        i for i in range(WAITING) if (cards.nth(i).bounding_box() or {"y": 0})["y"] > height
    )
    before = waiting("demo", index - 1).action_hash
    target = page.locator(f"#pick-{waiting('demo', index).action_hash}")
    target.evaluate(UNDER_THE_BAR)
    assert not uncovered(page, target)  # the bar lies on it now
    page.locator(f"#open-{before}").evaluate("link => link.focus({preventScroll: true})")
    page.keyboard.press("Tab")
    expect(target).to_be_focused()
    assert uncovered(page, target), f"{name}: the bar covers the focused box"
    page.keyboard.press("Space")
    expect(page.locator("#batch-summary")).to_contain_text("1 request selected")
    assert on_screen(page, button)
    screenshot(page, f"inbox-batch-bar-{name}.png")

    # At the end of the list the bar lies after the last card, over nothing.
    page.evaluate("window.scrollTo(0, document.documentElement.scrollHeight)")
    bar_box = page.locator("#batch-bar").bounding_box()
    last_box = cards.last.bounding_box()
    assert bar_box is not None and last_box is not None
    assert bar_box["y"] >= last_box["y"] + last_box["height"]
    found = [f"inbox @{name}: {line}" for line in axe_violations(page)]

    # The batch page: each customer's words, boxed and marked unverified, and no hash.
    page.locator(f"#pick-{waiting('demo', 0).action_hash}").check()
    expect(page.locator("#batch-summary")).to_contain_text("2 requests selected")
    button.click()
    expect(page.get_by_role("heading", name="Decide several at once")).to_be_visible()
    boxes = page.locator("ul.batch-list > li .ticket-box")
    expect(boxes).to_have_count(2)
    in_inbox_order = [words_of("demo", 0), words_of("demo", index)]
    expect(boxes.locator("pre.ticket")).to_have_text(in_inbox_order)
    expect(boxes.first).to_contain_text("Unverified customer text, exactly as written")
    assert page.locator("ul.batch-list code").count() == 0
    assert sideways(page) <= 0, f"{name}: the batch page is {sideways(page)} px too wide"
    found += [f"batch page @{name}: {line}" for line in axe_violations(page)]
    screenshot(page, f"batch-review-words-{name}.png")
    assert found == []
    assert problems == []
