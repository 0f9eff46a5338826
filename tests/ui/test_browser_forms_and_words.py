"""Forms and words in Chromium, on a real run: the edit form's button looks secondary
beside Approve; the language page's radio buttons sit beside their labels; ids stay on
one line on a phone that does not scroll sideways; the inbox card's countdown, ticking,
says its duration once under "Time left"; modes and who asked for a run read in support
words. (A disabled control's look is checked on the passkey stack:
tests/ui/test_browser_passkey.py.)"""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.ui.browser import new_page, screenshot, sign_in, watch_console
from tests.ui.conftest import DevStack, RefundCase

pytestmark = [pytest.mark.devserver, pytest.mark.browser]
PHONE = {"viewport": {"width": 375, "height": 740}, "is_mobile": True, "has_touch": True}
# Close enough to read as one: at most a space or two between a radio and its words.
MOST_GAP_PX = 16
BACKGROUND = "el => getComputedStyle(el).backgroundColor"
# Where each radio is and where its words are, on the language page.
RADIO_GAPS = """() => [...document.querySelectorAll("fieldset.choices label")].map(label => {
  const radio = label.querySelector("input[type=radio]").getBoundingClientRect();
  const text = [...label.childNodes].find(n => n.nodeType === 3 && n.textContent.trim());
  const range = document.createRange();
  range.selectNodeContents(text);
  const words = range.getBoundingClientRect();
  const middle = box => (box.top + box.bottom) / 2;
  return {gap: words.left - radio.right, off: Math.abs(middle(words) - middle(radio))};
})"""
# Every id shown as one: an inline element that wraps has a box per line.
WRAPPED_IDS = """() => [...document.querySelectorAll(".id")]
  .filter(el => el.getClientRects().length > 1).map(el => el.textContent)"""
SCROLL_WIDTH = "() => document.documentElement.scrollWidth"
NARROWEST_PX = 320  # the narrowest phone a page is made for
WIDTH_STEP_PX = 3


@pytest.fixture
def phone(browser: Browser) -> Iterator[Page]:
    yield from new_page(browser, **PHONE)


def test_the_edit_button_is_secondary_and_the_radios_sit_by_their_labels(
    page: Page, dev_stack: DevStack, pending_case: RefundCase
) -> None:
    problems = watch_console(page)
    sign_in(page, dev_stack, "alice")
    page.goto(f"{dev_stack.ui_url}/approvals/{pending_case.run_id}")
    approve = page.get_by_role("button", name="Approve refund of 60.00 EUR")
    edited = page.get_by_role("button", name="Approve with changes")
    expect(page.get_by_label("Amount to refund instead (EUR, at most 60.00)")).to_have_value("")
    assert approve.evaluate(BACKGROUND) != edited.evaluate(BACKGROUND)
    screenshot(page, "forms-edit-secondary.png", top="section.action .decide")

    page.goto(f"{dev_stack.ui_url}/language")
    gaps = page.evaluate(RADIO_GAPS)
    assert len(gaps) >= 3, gaps  # follow the browser, English, French
    assert all(0 <= gap["gap"] <= MOST_GAP_PX and gap["off"] <= MOST_GAP_PX for gap in gaps), gaps
    screenshot(page, "forms-language-radios.png")
    assert problems == []


def test_on_a_phone_ids_stay_whole_and_the_words_are_supports(
    phone: Page, dev_stack: DevStack, pending_case: RefundCase
) -> None:
    case = pending_case
    sign_in(phone, dev_stack, "alice")
    card = phone.locator(f'li[data-run-id="{case.run_id}"]')
    expect(card).to_contain_text(case.order_id)
    mode = card.locator("dt", has_text="Mode").locator("xpath=following-sibling::dd")
    expect(mode).to_have_text("one reviewer")
    # countdown.js rewrites it each second: it goes on saying the duration alone.
    countdown = card.locator(".countdown")
    expect(countdown).to_have_text(re.compile(r"^\d+ hr \d+ min$"))
    phone.wait_for_timeout(1500)
    expect(countdown).to_have_text(re.compile(r"^\d+ hr \d+ min$"))
    pages = {"inbox": phone.evaluate(WRAPPED_IDS)}
    widths = {"inbox": phone.evaluate(SCROLL_WIDTH)}
    screenshot(phone, "forms-phone-inbox.png")

    phone.goto(f"{dev_stack.ui_url}/approvals/{case.run_id}")
    expect(phone.locator("h1 .id")).to_have_text(case.order_id)
    widths["detail"] = phone.evaluate(SCROLL_WIDTH)
    screenshot(phone, "forms-phone-detail.png")
    # Whether a line ends at an id's hyphen depends on the width: every phone width from
    # the narrowest, each pixel step moving the breaks of the title and the sentences.
    wrapped = set()
    for width in range(NARROWEST_PX, PHONE["viewport"]["width"] + 1, WIDTH_STEP_PX):  # type: ignore[index]
        phone.set_viewport_size({"width": width, "height": PHONE["viewport"]["height"]})  # type: ignore[index]
        wrapped |= {f"{text} at {width} px" for text in phone.evaluate(WRAPPED_IDS)}
    pages["detail"] = sorted(wrapped)
    phone.set_viewport_size(PHONE["viewport"])  # type: ignore[arg-type]

    phone.goto(f"{dev_stack.ui_url}/runs/{case.run_id}")
    expect(phone.locator("#run-actor")).to_have_text(
        "signoff itself (started automatically, by no person)"
    )
    pages["run"], widths["run"] = phone.evaluate(WRAPPED_IDS), phone.evaluate(SCROLL_WIDTH)
    assert {name: ids for name, ids in pages.items() if ids} == {}
    assert all(width <= PHONE["viewport"]["width"] for width in widths.values()), widths  # type: ignore[index]
