"""The French decision page in Chromium: a browser asking for French gets it from the
sign-in on, the live countdown and the local-time tooltips go on in French, and
axe-core finds no violation at 1280 px (desktop) and 375 px (phone)."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.ui.axe import axe_violations
from tests.ui.browser import new_page, screenshot, watch_console
from tests.ui.conftest import DevStack, RefundCase

pytestmark = [pytest.mark.devserver, pytest.mark.browser]
WIDE = {"width": 1280, "height": 900}
PHONE = {"width": 375, "height": 800}


@pytest.fixture
def french_page(browser: Browser) -> Iterator[Page]:
    # locale: Chromium's Accept-Language; bypass_csp: axe-core is injected as a script.
    yield from new_page(browser, locale="fr-FR", viewport=WIDE, bypass_csp=True)


def test_the_french_decision_page_reads_in_french_and_passes_axe(
    french_page: Page, dev_stack: DevStack, pending_case: RefundCase
) -> None:
    page = french_page
    problems = watch_console(page)
    page.goto(f"{dev_stack.ui_url}/approvals/{pending_case.run_id}")
    expect(page.locator("html")).to_have_attribute("lang", "fr")
    page.get_by_label("Nom de l’approbateur").fill("alice")
    page.get_by_label("Mot de passe").fill("demo-alice")
    page.get_by_role("button", name="Se connecter").click()
    expect(page).to_have_url(f"{dev_stack.ui_url}/approvals/{pending_case.run_id}")
    expect(page.locator("#decision-title")).to_have_text(
        f"Rembourser 60,00 EUR à Kim Test, commande {pending_case.order_id}"
    )
    # The countdown rewrites itself each second: still in French after a tick.
    countdown = page.locator("#decision-subtitle .countdown")
    expect(countdown).to_have_text(re.compile(r"^il reste \d+\u202fh \d+\u00a0min$"))
    expect(page.locator("time.utc").first).to_have_attribute(
        "title", re.compile(r"^Votre heure locale : ")
    )
    screenshot(page, "decision-page-fr.png", docs=True)  # docs/ui/languages.md shows it
    for disclosure in page.locator("details").all():  # opened, they are checked too
        disclosure.locator("summary").click()
    wide = axe_violations(page)
    screenshot(page, "french-decision-1280.png")
    page.set_viewport_size(PHONE)
    phone = axe_violations(page)
    screenshot(page, "french-decision-375.png")
    assert (wide, phone, problems) == ([], [], [])
