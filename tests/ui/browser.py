"""What the browser tests share: Debian's Chromium driven headless by Playwright.

No browser is downloaded: Playwright launches /usr/bin/chromium (installed by
scripts/ensure-system-packages.sh). Screenshots go to test-artifacts/ (gitignored) for
a person to look at; those the docs show are also written, the visible part only, to
docs/images/ when SIGNOFF_DOCS_IMAGES=1 (`make docs-images`). The `browser` and `page`
fixtures are registered in tests/ui/conftest.py.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, ConsoleMessage, Page, expect, sync_playwright

from tests.ui.conftest import DevStack

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
DOCS_IMAGES = Path(__file__).resolve().parents[2] / "docs" / "images"
ARRIVAL_TIMEOUT_MS = 30_000
DESKTOP = {"width": 1100, "height": 900}


def launched_browser() -> Iterator[Browser]:
    if not Path(CHROMIUM).exists():
        pytest.fail(f"{CHROMIUM} is missing: run scripts/ensure-system-packages.sh", pytrace=False)
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield launched
        launched.close()


def new_page(browser: Browser, **context_options: object) -> Iterator[Page]:
    context = browser.new_context(**{"viewport": DESKTOP, **context_options})  # type: ignore[arg-type]
    opened = context.new_page()
    yield opened
    context.close()


def watch_console(page: Page) -> list[str]:
    """Collects console errors, page errors and dialogs: a clean page leaves it empty."""
    problems: list[str] = []

    def on_console(message: ConsoleMessage) -> None:
        if message.type == "error":
            problems.append(message.text)

    page.on("console", on_console)
    page.on("pageerror", lambda error: problems.append(str(error)))
    page.on("dialog", lambda dialog: problems.append(f"dialog: {dialog.message}"))
    return problems


def sign_in(page: Page, stack: DevStack, name: str) -> None:
    """Signs a demo reviewer in through the form, landing on the inbox."""
    page.goto(f"{stack.ui_url}/approvals")
    expect(page).to_have_url(f"{stack.ui_url}/signin?next=/approvals")
    page.get_by_label("Reviewer name").fill(name)
    page.get_by_label("Password").fill(f"demo-{name}")
    page.get_by_role("button", name="Sign in").click()
    expect(page).to_have_url(f"{stack.ui_url}/approvals")


def screenshot(page: Page, name: str, *, docs: bool = False, top: str | None = None) -> None:
    """The page, whole, in test-artifacts/; with `docs`, its visible part in docs/images/
    too when SIGNOFF_DOCS_IMAGES=1 (what a docs page shows, taken from a test that
    checked it), scrolled so that the element `top` (a selector) is at the top.

    The caret is left as it is: to hide it, Playwright sets a `style` on each text field
    for the shot and empties it after; an inbox refresh that swaps in meanwhile copies
    that style onto the new field (htmx settles `style`), and the page's CSP refuses it.
    """
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / name), full_page=True, caret="initial")
    if docs and os.environ.get("SIGNOFF_DOCS_IMAGES") == "1":
        if top is not None:
            page.locator(top).evaluate("element => element.scrollIntoView()")
        page.screenshot(path=str(DOCS_IMAGES / name), caret="initial")
