"""axe-core on the reviewer pages added beside the decision page, at 1280 px (desktop)
and 375 px (phone): the batch review and its results, the Slack account link, an
e-mail link's confirmation, the language choice, and a run's live page. Each is
opened as a reviewer reaches it, signed in, with its disclosures open; then the same
pages (with the inbox, the audit and the passkeys page) in French.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, Page, expect
from sqlalchemy import Engine

from signoff.config.settings import Settings
from signoff.service.email_links import decision_link
from signoff.service.handles import Store
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
        Store(store), app_settings, "alice", pending_case.run_id, action_hash, "approve"
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


@pytest.fixture
def french_axe_page(browser: Browser) -> Iterator[Page]:
    # locale: Chromium's Accept-Language, so every page (sign-in first) is in French.
    yield from new_page(browser, locale="fr-FR", viewport=WIDE, bypass_csp=True)


def test_the_french_pages_pass_axe_on_desktop_and_phone(
    french_axe_page: Page,
    dev_stack: DevStack,
    store: Engine,
    app_settings: Settings,
    pending_case: RefundCase,
) -> None:
    """The same pages in French (and the inbox, the audit and the passkeys page): longer
    words, other punctuation, and the run's English marked `lang="en"` inside them."""
    page = french_axe_page
    problems = watch_console(page)
    action_hash = wait_until_pending(dev_stack, pending_case)
    page.goto(f"{dev_stack.ui_url}/approvals")
    page.get_by_label("Nom de l’approbateur").fill("alice")
    page.get_by_label("Mot de passe").fill("demo-alice")
    page.get_by_role("button", name="Se connecter").click()
    expect(page.locator("html")).to_have_attribute("lang", "fr")
    found: list[str] = []

    url, _ = decision_link(
        Store(store), app_settings, "alice", pending_case.run_id, action_hash, "reject"
    )
    page.goto(f"{dev_stack.ui_url}/decide/{url.rsplit('/', 1)[1]}")
    expect(page.locator("#decide-confirm")).to_have_text("Confirmer : refuser")
    found += violations(page, "fr e-mail link")

    page.goto(f"{dev_stack.ui_url}/approvals")
    found += violations(page, "fr inbox")
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

    page.goto(f"{dev_stack.ui_url}/runs/{pending_case.run_id}")
    expect(page.get_by_role("heading", level=1)).to_contain_text("ce qui s’est passé")
    found += violations(page, "fr run page")

    for path, name in (("/audit", "fr audit"), ("/passkeys", "fr passkeys")):
        page.goto(f"{dev_stack.ui_url}{path}")
        expect(page.get_by_role("heading", level=1)).to_be_visible()
        found += violations(page, name)

    page.goto(f"{dev_stack.ui_url}/slack/link")
    expect(page.locator("#slack-title")).to_have_text("Lier votre compte Slack")
    found += violations(page, "fr slack link")

    assert (found, problems) == ([], [])
