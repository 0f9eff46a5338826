"""The passkey step-up's routes, through FastAPI's TestClient on the package's dev stack,
with the demo tenant's approvals above 50.00 needing a passkey: the JSON API refuses
such an approval (403, "decide it in the reviewer UI") while a rejection goes through;
the page refuses a form whose passkey answer is broken; a reviewer without a passkey
gets no challenge; a registration not started in the session stores nothing; the
refusals the page's script shows are in the page's language. Nothing is refunded, and
the run still waits."""

from __future__ import annotations

from collections.abc import Iterator
from decimal import Decimal

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import Engine

from activities.store.refunds import list_refunds
from approvals_ui.main import create_app
from approvals_ui.passkey_forms import MALFORMED
from signoff.config.settings import Settings
from signoff.service.passkey_step_up import NEEDS_PASSKEY
from tests.ui.conftest import DevStack, RefundCase, sign_in, wait_until_pending

pytestmark = pytest.mark.devserver


@pytest.fixture
def stepped_up(app_settings: Settings) -> Iterator[TestClient]:
    settings = app_settings.model_copy(update={"passkey_above": {"demo": Decimal("50.00")}})
    with TestClient(create_app(settings), follow_redirects=False) as client:
        yield client


def pending_hash(client: TestClient, case: RefundCase) -> str:
    detail = client.get(f"/api/approvals/{case.run_id}").json()
    action_hash: str = detail["pending_actions"][0]["action_hash"]
    return action_hash


def test_the_step_up_is_refused_without_a_passkey_on_every_route(
    stepped_up: TestClient, pending_case: RefundCase, dev_stack: DevStack, store: Engine
) -> None:
    csrf = sign_in(stepped_up, "alice")
    action_hash = pending_hash(stepped_up, pending_case)
    run = f"/approvals/{pending_case.run_id}"

    api = stepped_up.post(
        f"/api{run}/decision",
        json={"action_hash": action_hash, "verdict": "approve"},
        headers={"X-CSRF-Token": csrf},
    )
    page = stepped_up.post(
        f"{run}/decision",
        data={"csrf_token": csrf, "action_hash": action_hash, "verdict": "approve"},
    )
    broken = stepped_up.post(
        f"{run}/decision",
        data={
            "csrf_token": csrf,
            "action_hash": action_hash,
            "verdict": "approve",
            "passkey_issued_at": "yesterday",
            "passkey_nonce": "0" * 32,
            "passkey_assertion": "{}",
        },
    )
    challenge = stepped_up.post(
        f"{run}/passkey-challenge",
        data={"csrf_token": csrf, "action_hash": action_hash, "verdict": "approve"},
    )
    registration = stepped_up.post("/passkeys", json={"id": "x"}, headers={"X-CSRF-Token": csrf})

    assert api.status_code == 403 and api.json()["detail"] == NEEDS_PASSKEY
    assert page.status_code == 403 and "this decision needs a passkey" in page.text
    assert broken.status_code == 403 and MALFORMED in broken.text
    assert challenge.status_code == 409 and "no passkey registered" in challenge.json()["detail"]
    assert registration.status_code == 409 and "No passkey registration" in registration.text
    assert list_refunds(store, "demo", pending_case.order_id) == []
    wait_until_pending(dev_stack, pending_case)


def test_the_passkey_script_s_refusals_are_in_the_page_language(
    stepped_up: TestClient, pending_case: RefundCase
) -> None:
    """passkeys.js shows a refusal inside a sentence of the page: it must be French too."""
    csrf = sign_in(stepped_up, "alice")
    french = {"X-CSRF-Token": csrf, "Accept-Language": "fr-FR,fr;q=0.9"}
    challenge = stepped_up.post(
        f"/approvals/{pending_case.run_id}/passkey-challenge",
        data={"action_hash": pending_hash(stepped_up, pending_case), "verdict": "approve"},
        headers=french,
    )
    registration = stepped_up.post("/passkeys", json={"id": "x"}, headers=french)
    assert challenge.status_code == 409 and challenge.json()["detail"].startswith(
        "Vous n’avez aucune clé d’accès enregistrée, et cette décision en exige une."
    )
    assert registration.status_code == 409 and registration.json()["detail"].startswith(
        "Aucun enregistrement de clé d’accès n’a été commencé dans cette session."
    )


def test_a_rejection_needs_no_passkey(stepped_up: TestClient, pending_case: RefundCase) -> None:
    csrf = sign_in(stepped_up, "alice")
    rejected = stepped_up.post(
        f"/api/approvals/{pending_case.run_id}/decision",
        json={
            "action_hash": pending_hash(stepped_up, pending_case),
            "verdict": "reject",
            "reason": "not our fault",
            "category": "not_eligible",
        },
        headers={"X-CSRF-Token": csrf},
    )
    assert rejected.status_code == 200, rejected.text
    assert rejected.json()["status"] == "rejected"
