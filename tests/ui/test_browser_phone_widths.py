"""No reviewer page scrolls sideways on a phone, in English or in French: the inbox (its
sort and filter choices are longer in French), the audit (its filters), the standing
rules' admin page (a fifth link in the header) and the language page, each at 375 px
as the administrator sees it, who sees every link."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.ui.browser import new_page, screenshot
from tests.ui.conftest import DevStack

pytestmark = [pytest.mark.devserver, pytest.mark.browser]
PHONE = {"width": 375, "height": 800}
PAGES = ("/approvals", "/audit", "/admin/rules", "/language", "/passkeys")
SIGN_IN = {
    "en": ("Reviewer name", "Password", "Sign in"),
    "fr": ("Nom de l’approbateur", "Mot de passe", "Se connecter"),
}


@pytest.fixture(params=["en", "fr"])
def phone(browser: Browser, request: pytest.FixtureRequest) -> Iterator[tuple[str, Page]]:
    locale = "fr-FR" if request.param == "fr" else "en-US"
    for page in new_page(browser, locale=locale, viewport=PHONE):
        yield request.param, page


def test_no_page_scrolls_sideways_on_a_phone(phone: tuple[str, Page], dev_stack: DevStack) -> None:
    language, page = phone
    name, password, button = SIGN_IN[language]
    page.goto(f"{dev_stack.ui_url}/approvals")
    page.get_by_label(name).fill("admin")
    page.get_by_label(password).fill("demo-admin")
    page.get_by_role("button", name=button).click()
    expect(page).to_have_url(f"{dev_stack.ui_url}/approvals")
    wide = {}
    for path in PAGES:
        page.goto(f"{dev_stack.ui_url}{path}")
        expect(page.locator("html")).to_have_attribute("lang", language)
        screenshot(page, f"phone-{language}{path.replace('/', '-')}.png")
        width = page.evaluate("document.documentElement.scrollWidth")
        if width > PHONE["width"]:
            wide[path] = width
    assert wide == {}, f"pages wider than the phone ({language}): {wide}"
