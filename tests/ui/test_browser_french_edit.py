"""The edit box of the French decision page in Chromium: `20,00`, typed as French writes
amounts, is read as 20.00 and the refund is 20.00 EUR; an amount above the proposal is
refused in French, its amounts written the French way, with the reason still in its box."""

from __future__ import annotations

import time
from collections.abc import Iterator
from decimal import Decimal

import pytest
from playwright.sync_api import Browser, Page, expect
from sqlalchemy import Engine

from activities.store import list_refunds
from tests.ui.browser import new_page, watch_console
from tests.ui.conftest import DevStack, RefundCase

pytestmark = [pytest.mark.devserver, pytest.mark.browser]
REFUNDED_SECONDS = 60
REASON = "Geste commercial : colis abîmé"
AMOUNT_BOX = "Montant à rembourser à la place (EUR, au plus 60,00)"
REASON_BOX = "Pourquoi vous le modifiez (obligatoire ; l’agent en est informé)"
EDIT_BUTTON = "Approuver avec modifications"


@pytest.fixture
def french_page(browser: Browser) -> Iterator[Page]:
    yield from new_page(browser, locale="fr-FR")  # Chromium's Accept-Language


def open_in_french(page: Page, stack: DevStack, case: RefundCase) -> None:
    page.goto(f"{stack.ui_url}/approvals/{case.run_id}")
    page.get_by_label("Nom de l’approbateur").fill("alice")
    page.get_by_label("Mot de passe").fill("demo-alice")
    page.get_by_role("button", name="Se connecter").click()
    expect(page).to_have_url(f"{stack.ui_url}/approvals/{case.run_id}")


def test_a_french_reviewer_types_20_comma_00_and_the_refund_is_20_euros(
    french_page: Page, dev_stack: DevStack, store: Engine, pending_case: RefundCase
) -> None:
    page, case = french_page, pending_case
    problems = watch_console(page)
    open_in_french(page, dev_stack, case)
    page.get_by_label(AMOUNT_BOX).fill("20,00")
    page.get_by_label(REASON_BOX).fill(REASON)
    page.get_by_role("button", name=EDIT_BUTTON).click()
    expect(page.get_by_role("status")).to_contain_text("Approuvé avec modifications.")

    deadline = time.monotonic() + REFUNDED_SECONDS
    while not list_refunds(store, case.tenant_id, case.order_id):
        assert time.monotonic() < deadline, "the edited refund was never made"
        time.sleep(0.3)
    (row,) = list_refunds(store, case.tenant_id, case.order_id)
    assert (row.amount, row.approver_list) == (Decimal("20.00"), ["alice"])
    assert problems == []


def test_a_refused_edit_is_told_in_french_and_keeps_the_reason(
    french_page: Page, dev_stack: DevStack, store: Engine, pending_case: RefundCase
) -> None:
    page, case = french_page, pending_case
    open_in_french(page, dev_stack, case)
    page.get_by_label(AMOUNT_BOX).fill("70,00")
    page.get_by_label(REASON_BOX).fill(REASON)
    page.get_by_role("button", name=EDIT_BUTTON).click()

    refusal = page.locator("#refusal")
    expect(refusal).to_have_text(
        "70,00 EUR dépasse les 60,00 EUR proposés : une modification ne peut que baisser "
        "le montant."
    )
    expect(refusal).not_to_have_attribute("lang", "en")
    # Nothing typed is lost: the reviewer mends the amount and sends the same reason.
    expect(page.get_by_label(REASON_BOX)).to_have_value(REASON)
    expect(page.get_by_label(AMOUNT_BOX)).to_have_value("70,00")
    assert list_refunds(store, case.tenant_id, case.order_id) == []
