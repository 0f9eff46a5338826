"""axe-core on the batch review and its results, at 1280 px (desktop) and 375 px (phone),
in English and in French: pages that answer a form (POST), which the walk over every
page's route (tests/ui/test_browser_every_page.py, axe at both widths) cannot open by
address. Each is reached as a reviewer reaches it, signed in, with its disclosures open.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.ui.axe import axe_violations
from tests.ui.browser import new_page, sign_in, watch_console
from tests.ui.conftest import DevStack, RefundCase

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


def test_the_batch_pages_pass_axe_on_desktop_and_phone(
    axe_page: Page,
    dev_stack: DevStack,
    pending_case: RefundCase,
) -> None:
    page = axe_page
    problems = watch_console(page)
    sign_in(page, dev_stack, "alice")
    found: list[str] = []

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

    assert (found, problems) == ([], [])


@pytest.fixture
def french_axe_page(browser: Browser) -> Iterator[Page]:
    # locale: Chromium's Accept-Language, so every page (sign-in first) is in French.
    yield from new_page(browser, locale="fr-FR", viewport=WIDE, bypass_csp=True)


def test_the_french_batch_pages_pass_axe_on_desktop_and_phone(
    french_axe_page: Page,
    dev_stack: DevStack,
    pending_case: RefundCase,
) -> None:
    """The same pages in French: longer words, other punctuation."""
    page = french_axe_page
    problems = watch_console(page)
    page.goto(f"{dev_stack.ui_url}/approvals")
    page.get_by_label("Nom de l’approbateur").fill("alice")
    page.get_by_label("Mot de passe").fill("demo-alice")
    page.get_by_role("button", name="Se connecter").click()
    expect(page.locator("html")).to_have_attribute("lang", "fr")
    found: list[str] = []
    title = f"Rembourser 60,00 EUR sur la commande {pending_case.order_id}"
    page.get_by_label(f"Sélectionner {title}").check()
    page.get_by_role("button", name="Décider des demandes sélectionnées…").click()
    expect(page.get_by_role("heading", name="Décider de plusieurs à la fois")).to_be_visible()
    found += violations(page, "fr batch review")
    page.get_by_label("Motif, pour chaque demande").fill("Vérifié avec le client.")
    page.get_by_label("Catégorie, pour refuser").select_option("other")
    page.get_by_role("button", name="Tout refuser (1)").click()
    expect(page.locator("table.batch-results tbody tr")).to_have_count(1)
    found += violations(page, "fr batch results")

    assert (found, problems) == ([], [])
