"""Issue 4's quality bar, checked in a real browser (see tests/ui/browser.py): the reviewer
UI works with the keyboard alone, is labelled for screen readers, and says in words what
it shows in colour. That every page fits a phone, in both languages, is checked by
tests/ui/test_browser_every_page.py.

Accessible names come from Chromium's own accessibility tree (over CDP), not from a
re-implementation of the naming rules: that tree is what a screen reader reads.
"""

from __future__ import annotations

import re
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass

import pytest
from playwright.sync_api import Browser, Locator, Page, expect
from sqlalchemy import Engine

from tests.ui.browser import ARRIVAL_TIMEOUT_MS, new_page, sign_in
from tests.ui.conftest import DevStack, RefundCase, add_case, start_run
from tests.ui.still import held_still

pytestmark = pytest.mark.devserver

MAX_TAB_STOPS = 120  # the inbox lists up to 50 cards, one link each, plus the header
REJECT_REASON = "Photo of the damage missing."
TIME_LEFT = re.compile(r"\b(left|expired)\b")
MODE_WORDS = re.compile(r"^(one reviewer|four eyes)\b")
# Under a "Time left" label, the duration alone (or that it expired).
DURATION = re.compile(r"^(\d+ (hr|min|sec)\b|expired\b)")
CONTROLS = 'a[href], button, input, select, textarea, [tabindex]:not([tabindex="-1"])'

FOCUS_STATE = """selector => {
  const el = document.activeElement;
  const style = getComputedStyle(el);
  const box = el.getBoundingClientRect();
  return {
    matches: el.matches(selector),
    what: el.outerHTML.slice(0, 100),
    outlined: style.outlineStyle !== "none" && parseFloat(style.outlineWidth) > 0,
    onScreen: box.width > 0 && box.height > 0 && box.bottom > 0 && box.right > 0
      && box.top < innerHeight && box.left < innerWidth,
  };
}"""

NEXT_INBOX_SWAP = """() => new Promise(settled => document.getElementById("inbox")
  .addEventListener("htmx:afterSettle", settled, {once: true}))"""

PAGE_STRUCTURE = """() => {
  const problems = [];
  const what = el => el.outerHTML.slice(0, 80);
  if (!document.documentElement.lang) problems.push("<html> has no lang");
  if (!document.title.trim()) problems.push("no <title>");
  const h1 = document.querySelectorAll("h1").length;
  if (h1 !== 1) problems.push(`${h1} <h1> elements, not one`);
  const mains = document.querySelectorAll("main, [role=main]").length;
  if (mains !== 1) problems.push(`${mains} main landmarks, not one`);
  for (const img of document.querySelectorAll("img:not([alt])"))
    problems.push(`no alt: ${what(img)}`);
  const roles = {".countdown": "timer", ".notice": "status", ".refusal": "alert"};
  for (const [selector, role] of Object.entries(roles))
    for (const el of document.querySelectorAll(selector))
      if (el.getAttribute("role") !== role) problems.push(`not role=${role}: ${what(el)}`);
  const inbox = document.getElementById("inbox");
  if (inbox) {
    // A poll replaces the list every few seconds: a live list would be read out again each time.
    if (!["off", null].includes(inbox.getAttribute("aria-live")))
      problems.push("the polled inbox list is a live region");
    // The count is a live region of its own, outside the list, that a poll updates in
    // place (out of band): it stays the same element, so a change is announced.
    const count = document.getElementById("inbox-count");
    const polite = el => el.getAttribute("role") === "status"
      || el.getAttribute("aria-live") === "polite";
    if (!count || !polite(count) || inbox.contains(count))
      problems.push("the inbox count is not a polite live region outside the polled list");
  }
  return problems;
}"""


@dataclass(frozen=True)
class Cases:
    waiting: RefundCase  # stays pending: inbox card, detail page
    rejected: RefundCase  # rejected by bob: a row in the run's and the audit's decisions
    to_approve: RefundCase  # approved by the keyboard test

    def all(self) -> tuple[RefundCase, ...]:
        return (self.waiting, self.rejected, self.to_approve)


@pytest.fixture(scope="module")
def cases(browser: Browser, dev_stack: DevStack, store: Engine) -> Cases:
    made = Cases(add_case(store), add_case(store), add_case(store))
    # Each `signoff run` is a process that takes seconds to start: all at once, while bob
    # signs in.
    with ThreadPoolExecutor() as pool, contextmanager(new_page)(browser) as page:
        starting = [pool.submit(start_run, dev_stack, case) for case in made.all()]
        sign_in(page, dev_stack, "bob")
        for started in starting:
            started.result()
        for case in made.all():
            card = page.locator(f'li[data-run-id="{case.run_id}"]')
            expect(card).to_be_visible(timeout=ARRIVAL_TIMEOUT_MS)
        page.goto(f"{dev_stack.ui_url}/approvals/{made.rejected.run_id}")
        page.get_by_label("Category (required)").select_option("other")
        page.get_by_label("Reason for rejecting (required)").fill(REJECT_REASON)
        page.get_by_role("button", name="Reject").click()
        expect(page.get_by_role("status")).to_contain_text("Rejected.")
    return made


def press_tab(page: Page, selector: str) -> bool:
    """One Tab press; the element it lands on must show a focus outline, on screen."""
    page.keyboard.press("Tab")
    focus = page.evaluate(FOCUS_STATE, selector)
    assert focus["onScreen"] and focus["outlined"], f"focus not visible on {focus['what']}"
    return bool(focus["matches"])


def tab_to(page: Page, selector: str) -> None:
    if not any(press_tab(page, selector) for _ in range(MAX_TAB_STOPS)):
        pytest.fail(f"{selector} not reached in {MAX_TAB_STOPS} Tab presses")


def accessibility_problems(page: Page) -> list[str]:
    """What a screen reader user would miss on this page, in words; empty when nothing.

    The page is held still while it is read (tests/ui/still.py): the inbox replaces its
    list every few seconds, and a node dropped between the query that found it and the
    read of its accessibility would fail the walk."""
    with held_still(page):
        return _accessibility_problems(page)


def _accessibility_problems(page: Page) -> list[str]:
    problems: list[str] = page.evaluate(PAGE_STRUCTURE)
    cdp = page.context.new_cdp_session(page)
    try:
        root = cdp.send("DOM.getDocument", {"depth": 0})["root"]["nodeId"]
        for selector, check in ((CONTROLS, "name"), ("table", "role")):
            found = cdp.send("DOM.querySelectorAll", {"nodeId": root, "selector": selector})
            for node_id in found["nodeIds"]:
                tree = cdp.send(
                    "Accessibility.getPartialAXTree", {"nodeId": node_id, "fetchRelatives": False}
                )
                node = tree["nodes"][0]
                if node.get("ignored"):
                    continue  # not exposed at all, e.g. a hidden input
                html = cdp.send("DOM.getOuterHTML", {"nodeId": node_id})["outerHTML"]
                html = " ".join(html.split())[:80]
                if check == "name" and not node.get("name", {}).get("value", "").strip():
                    problems.append(f"no accessible name: {html}")
                if check == "role" and node["role"]["value"] not in ("table", "grid"):
                    problems.append(f"exposed as {node['role']['value']}, not table: {html}")
    finally:
        cdp.detach()
    return [f"{page.url}: {problem}" for problem in problems]


def test_keyboard_alone_signs_in_opens_a_refund_and_approves_it(
    page: Page, dev_stack: DevStack, cases: Cases
) -> None:
    """Tab, typing, Enter and Space only; every Tab stop shows a focus outline on screen.
    The focused card keeps its focus while the inbox polls and replaces its list."""
    page.goto(f"{dev_stack.ui_url}/approvals")
    expect(page.locator("#username")).to_be_focused()  # autofocus: type straight away
    page.keyboard.type("alice")
    page.keyboard.press("Tab")
    expect(page.locator("#password")).to_be_focused()
    page.keyboard.type("demo-alice")
    page.keyboard.press("Enter")
    expect(page).to_have_url(f"{dev_stack.ui_url}/approvals")

    assert press_tab(page, "a.skip"), "the skip link is not the first Tab stop"
    page.keyboard.press("Enter")
    expect(page.locator("main")).to_be_focused()

    card_link = f'li[data-run-id="{cases.to_approve.run_id}"] a'
    tab_to(page, card_link)
    page.evaluate(NEXT_INBOX_SWAP)  # the inbox polls and replaces its list under the focus
    expect(page.locator(card_link)).to_be_focused()
    page.keyboard.press("Enter")
    expect(page).to_have_url(f"{dev_stack.ui_url}/approvals/{cases.to_approve.run_id}")

    tab_to(page, 'button[name="approve"]')
    page.keyboard.press("Space")
    expect(page.get_by_role("status")).to_contain_text("Approved.")


def test_every_page_is_labelled_for_screen_readers(
    page: Page, dev_stack: DevStack, cases: Cases
) -> None:
    """Names of controls, landmarks, one h1, lang, title, alt, and live regions that speak
    when they should (notices, alerts, the inbox count) and stay quiet when they tick."""
    page.goto(f"{dev_stack.ui_url}/signin")
    problems = accessibility_problems(page)
    sign_in(page, dev_stack, "alice")
    for path in (
        "/approvals",
        f"/approvals/{cases.waiting.run_id}",
        f"/runs/{cases.rejected.run_id}",
        "/audit",
        "/approvals/run-demo-nosuchrun",  # the error page, with its alert
    ):
        page.goto(dev_stack.ui_url + path)
        problems += accessibility_problems(page)
    assert not problems, "\n".join(problems)


def fact(scope: Locator, term: str) -> str:
    """The text of the <dd> under the <dt> that names `term`, in a list of facts."""
    return scope.locator("dt", has_text=term).locator("xpath=following-sibling::dd").inner_text()


def test_states_are_said_in_words_not_only_in_colour(
    page: Page, dev_stack: DevStack, cases: Cases
) -> None:
    """Refusal, warning, time left, mode and verdicts are words on the page, so that a
    colour-blind reviewer, or one under forced colours (Windows high contrast, emulated
    here: backgrounds go, words and borders stay), reads the same state."""
    page.emulate_media(forced_colors="active")
    page.goto(f"{dev_stack.ui_url}/signin")
    page.get_by_label("Reviewer name").fill("nobody")
    page.get_by_label("Password").fill("wrong")  # the one failed sign-in: they are rate limited
    page.get_by_role("button", name="Sign in").click()
    refusal = page.locator("p.refusal")
    expect(refusal).to_contain_text("Wrong name or password")
    prefix = refusal.evaluate("el => getComputedStyle(el, '::before').content")
    assert "Not accepted" in prefix
    assert refusal.evaluate("el => getComputedStyle(el).borderLeftStyle") != "none"

    sign_in(page, dev_stack, "dave")  # reads, cannot decide: the detail page warns him
    card = page.locator(f'li[data-run-id="{cases.waiting.run_id}"]')
    assert MODE_WORDS.search(fact(card, "Mode"))
    assert DURATION.search(card.locator(".countdown").inner_text())

    page.goto(f"{dev_stack.ui_url}/approvals/{cases.waiting.run_id}")
    warning = page.locator("p.warning")
    expect(warning).to_contain_text("you do not have the refund approver role")
    assert warning.evaluate("el => getComputedStyle(el).borderLeftStyle") != "none"
    expect(page.locator(".ticket-box")).to_contain_text("Unverified customer text")
    assert TIME_LEFT.search(page.locator("section.action .countdown").inner_text())
    assert MODE_WORDS.search(fact(page.locator("section.action"), "Mode"))

    page.goto(f"{dev_stack.ui_url}/runs/{cases.rejected.run_id}")
    expect(page.locator("table.decisions tbody td").nth(1)).to_have_text("rejected")

    page.goto(f"{dev_stack.ui_url}/audit?reviewer=bob")
    verdicts = set(page.locator('select[name="verdict"] option').all_inner_texts()) - {"any"}
    cells = page.locator("table.audit tbody td:nth-child(2)").all_inner_texts()
    assert cells and set(cells) <= verdicts, (cells, verdicts)
