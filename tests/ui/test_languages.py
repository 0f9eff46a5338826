"""The reviewer UI in the reviewer's language, on a real dev stack: the decision page in
French shows no English of ours (the same check finds plenty on the English page), the
reviewer's own choice beats the browser's Accept-Language, and only the signed-in
reviewer's choice changes, through a form with the session's CSRF token."""

from __future__ import annotations

import re

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import Engine

from signoff.service.handles import Store
from signoff.service.languages import choose_language, preferred_language
from tests.ui.conftest import RefundCase, csrf_of, sign_in
from tests.ui.untranslated import untranslated

pytestmark = pytest.mark.devserver
FRENCH = {"Accept-Language": "fr-FR,fr;q=0.9,en;q=0.5"}
ENGLISH = {"Accept-Language": "en-US,en;q=0.9"}


def html_lang(page: str) -> str:
    found = re.search(r'<html lang="([^"]+)"', page)
    assert found is not None, page[:200]
    return found.group(1)


def test_the_decision_page_in_french_has_no_english_of_ours(
    ui: TestClient, pending_case: RefundCase
) -> None:
    sign_in(ui, "alice")
    french = ui.get(f"/approvals/{pending_case.run_id}", headers=FRENCH)
    assert french.status_code == 200 and french.headers["content-language"] == "fr"
    page = french.text
    assert html_lang(page) == "fr"
    assert untranslated(page, "fr") == []
    # Amounts and times in French: the comma, the code, the date in words.
    assert "Rembourser 60,00 EUR à Kim Test" in page and "il reste" in page
    assert re.search(r"\d{1,2} [a-zé]+\.? 20\d\d, \d\d:\d\d:\d\d UTC\+00:00</time>", page)
    assert "Approuver le remboursement de 60,00 EUR" in page
    # The same check, on the same page in English, finds our English: it can fail.
    english = ui.get(f"/approvals/{pending_case.run_id}", headers=ENGLISH).text
    assert html_lang(english) == "en"
    found = untranslated(english, "fr")
    assert {"Remaining refundable", "4. Your decision", "Technical details"} <= set(found)


def test_a_decision_made_in_french_is_told_in_french(
    ui: TestClient, pending_case: RefundCase
) -> None:
    sign_in(ui, "alice")
    page = ui.get(f"/approvals/{pending_case.run_id}", headers=FRENCH).text
    action_hash = re.search(r'name="action_hash" value="([0-9a-f]{64})"', page)
    assert action_hash is not None
    form = {
        "csrf_token": csrf_of(page),
        "action_hash": action_hash.group(1),
        "verdict": "reject",
        "category": "not_eligible",
        "reason": "Hors délai de retour.",
    }
    answer = ui.post(f"/approvals/{pending_case.run_id}/decision", data=form, headers=FRENCH)
    assert answer.status_code == 303, answer.text
    after = ui.get(answer.headers["location"], headers=FRENCH).text
    assert "Refusé. L’action n’aura pas lieu, et l’agent apprend pourquoi." in after
    assert untranslated(after, "fr") == []


def test_the_reviewers_choice_beats_the_browser_and_only_they_make_it(
    ui: TestClient, store: Engine
) -> None:
    token = sign_in(ui, "carol")
    try:
        _choose_and_clear(ui, token, store)
    finally:  # the stack is shared: carol reads English again whatever happened here
        choose_language(Store(store), "carol", None)


def _choose_and_clear(ui: TestClient, token: str, store: Engine) -> None:
    # No CSRF token: refused, nothing chosen.
    refused = ui.post("/language", data={"language": "fr"})
    assert refused.status_code == 403 and preferred_language(Store(store), "carol") is None
    # A language the UI does not speak: a clear 400, nothing chosen.
    unknown = ui.post("/language", data={"csrf_token": token, "language": "de"}, headers=ENGLISH)
    assert unknown.status_code == 400
    assert "Choose one of the languages listed" in unknown.text
    assert preferred_language(Store(store), "carol") is None

    chosen = ui.post("/language", data={"csrf_token": token, "language": "fr"}, headers=ENGLISH)
    assert chosen.status_code == 303 and preferred_language(Store(store), "carol") == "fr"
    page = ui.get("/language", headers=ENGLISH).text
    assert html_lang(page) == "fr"
    assert "L’interface d’approbation vous parle désormais en Français." in page
    inbox = ui.get("/approvals", headers=ENGLISH).text
    assert html_lang(inbox) == "fr" and "En attente d’une décision" in inbox
    # Another reviewer's pages follow their own browser.
    with TestClient(ui.app, follow_redirects=False) as other:
        sign_in(other, "dave")
        assert html_lang(other.get("/approvals", headers=ENGLISH).text) == "en"
    assert preferred_language(Store(store), "dave") is None

    back = ui.post("/language", data={"csrf_token": token, "language": "auto"}, headers=ENGLISH)
    assert back.status_code == 303 and preferred_language(Store(store), "carol") is None
    assert html_lang(ui.get("/approvals", headers=ENGLISH).text) == "en"
    assert html_lang(ui.get("/approvals", headers=FRENCH).text) == "fr"
