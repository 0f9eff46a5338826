"""Amounts typed in French, and refused decision forms, on a real dev stack: the edit box
of a French page reads `20,00` and the refund is 20.00; every refusal of the form is in
French, with its amounts written the French way, and the page shows the form again
with what the reviewer typed; an English page refuses `20,00` instead of reading 2000."""

from __future__ import annotations

import html
import re
import time
from decimal import Decimal

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import Engine

from activities.store import list_refunds
from tests.ui.conftest import RefundCase, csrf_of, sign_in
from tests.ui.untranslated import untranslated

pytestmark = pytest.mark.devserver
FRENCH = {"Accept-Language": "fr-FR,fr;q=0.9"}
ENGLISH = {"Accept-Language": "en-US,en;q=0.9"}
REFUNDED_SECONDS = 60
REASON = "Geste commercial, colis abîmé"


def edit_form(ui: TestClient, run_id: str, headers: dict[str, str]) -> dict[str, str]:
    page = ui.get(f"/approvals/{run_id}", headers=headers).text
    action_hash = re.search(r'name="action_hash" value="([0-9a-f]{64})"', page)
    assert action_hash is not None, page[:500]
    return {
        "csrf_token": csrf_of(page),
        "action_hash": action_hash.group(1),
        "verdict": "approve",
        "edit": "1",
    }


def edit_box_value(page: str) -> str:
    found = re.search(r'<input id="edit-amount-[^"]*" name="edit_amount"[^>]*value="([^"]*)"', page)
    assert found is not None, "no amount box on the page"
    return html.unescape(found.group(1))


def edit_reason_value(page: str) -> str:
    found = re.search(r'<input id="edit-reason-[^"]*" name="reason"[^>]*value="([^"]*)"', page)
    assert found is not None, "no reason box on the edit form"
    return html.unescape(found.group(1))


def refusal(page: str) -> str:
    found = re.search(r'<p class="refusal" role="alert" id="refusal"([^>]*)>([^<]*)</p>', page)
    assert found is not None, "the page says no refusal"
    assert "lang=" not in found.group(1), "the refusal is marked as another language"
    return html.unescape(found.group(2))


def test_a_french_reviewer_is_told_in_french_keeps_what_they_typed_then_edits_with_a_comma(
    ui: TestClient, store: Engine, pending_case: RefundCase
) -> None:
    case = pending_case
    sign_in(ui, "alice")
    url = f"/approvals/{case.run_id}/decision"
    form = edit_form(ui, case.run_id, FRENCH)

    typo = ui.post(url, data={**form, "edit_amount": "20,00x", "reason": REASON}, headers=FRENCH)
    assert typo.status_code == 400
    assert refusal(typo.text) == "« 20,00x » n’est pas un montant : écrivez-le comme 50,00."
    assert (edit_box_value(typo.text), edit_reason_value(typo.text)) == ("20,00x", REASON)
    assert untranslated(typo.text, "fr") == []

    above = ui.post(url, data={**form, "edit_amount": "70,00", "reason": REASON}, headers=FRENCH)
    assert above.status_code == 400
    assert refusal(above.text) == (
        "70,00 EUR dépasse les 60,00 EUR proposés : une modification ne peut que baisser le "
        "montant."
    )
    assert edit_reason_value(above.text) == REASON

    no_reason = ui.post(url, data={**form, "edit_amount": "20,00", "reason": " "}, headers=FRENCH)
    assert no_reason.status_code == 400
    assert (
        refusal(no_reason.text)
        == "Dites pourquoi vous l’avez modifiée : l’agent reçoit votre raison."
    )
    assert edit_box_value(no_reason.text) == "20,00"
    assert list_refunds(store, case.tenant_id, case.order_id) == []  # nothing was decided

    accepted = ui.post(url, data={**form, "edit_amount": "20,00", "reason": REASON}, headers=FRENCH)
    assert accepted.status_code == 303, accepted.text
    deadline = time.monotonic() + REFUNDED_SECONDS
    while not list_refunds(store, case.tenant_id, case.order_id):
        assert time.monotonic() < deadline, "the edited refund was never made"
        time.sleep(0.3)
    (row,) = list_refunds(store, case.tenant_id, case.order_id)
    assert row.amount == Decimal("20.00")


def test_an_english_page_refuses_a_comma_amount_instead_of_reading_thousands(
    ui: TestClient, store: Engine, pending_case: RefundCase
) -> None:
    case = pending_case
    sign_in(ui, "alice")
    form = edit_form(ui, case.run_id, ENGLISH)
    data = {**form, "edit_amount": "20,00", "reason": "goodwill"}
    page = ui.post(f"/approvals/{case.run_id}/decision", data=data, headers=ENGLISH)
    assert page.status_code == 400
    assert refusal(page.text) == "'20,00' is not an amount: write it like 50.00."
    assert (edit_box_value(page.text), edit_reason_value(page.text)) == ("20,00", "goodwill")
    assert list_refunds(store, case.tenant_id, case.order_id) == []


def test_a_refused_rejection_keeps_its_category_and_reason_and_says_why_in_french(
    ui: TestClient, pending_case: RefundCase
) -> None:
    sign_in(ui, "alice")
    form = edit_form(ui, pending_case.run_id, FRENCH)
    data = {
        **form,
        "edit": "",
        "verdict": "reject",
        "category": "not_eligible",
        "reason": " ",  # the run refuses a rejection without a reason
    }
    page = ui.post(f"/approvals/{pending_case.run_id}/decision", data=data, headers=FRENCH)
    assert page.status_code == 409, page.text
    assert refusal(page.text) == "Un refus exige une raison."
    assert re.search(r'<option value="not_eligible" selected>', page.text)
