"""Deciding several at once through the routes (FastAPI's TestClient on the package's dev
stack): `POST /api/approvals/batch` and the inbox's batch pages.

Each action gets its own decision and its own outcome: approved ones are refunded, and one
that cannot be decided (another tenant's run, a hash that is not the one waiting, an
approval that needs a passkey) fails on its own line, while the run it names still
waits. A malformed batch (too many, a repeat, a rejection without its category or
reason) is refused whole, before anything is sent.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from decimal import Decimal
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import Engine

from activities.store import list_refunds
from approvals_ui.main import create_app
from signoff.config.settings import Settings
from signoff.service.batch_decisions import DECIDE_ALONE, MAX_BATCH, NOT_IN_TENANT
from tests.ui.conftest import (
    DevStack,
    RefundCase,
    add_case,
    sign_in,
    start_run,
    wait_until_pending,
)

pytestmark = pytest.mark.devserver
SETTLE_SECONDS = 30


@pytest.fixture
def proxied(app_settings: Settings) -> Iterator[TestClient]:
    settings = app_settings.model_copy(update={"auth": "proxy"})
    with TestClient(create_app(settings), follow_redirects=False) as client:
        yield client


def as_user(name: str) -> dict[str, str]:
    return {"X-Forwarded-User": name}


def waiting(dev_stack: DevStack, store: Engine, tenant_id: str = "demo") -> tuple[RefundCase, str]:
    case = add_case(store, tenant_id)
    start_run(dev_stack, case)
    return case, wait_until_pending(dev_stack, case)


def refunded(store: Engine, case: RefundCase) -> list[Any]:
    deadline = time.monotonic() + SETTLE_SECONDS
    while not (rows := list_refunds(store, case.tenant_id, case.order_id)):
        assert time.monotonic() < deadline, f"{case.run_id} was never refunded"
        time.sleep(0.3)
    return rows


def item(case: RefundCase, action_hash: str) -> dict[str, str]:
    return {"run_id": case.run_id, "action_hash": action_hash}


def test_api_batch_decides_each_and_lists_the_failures_beside(
    proxied: TestClient, dev_stack: DevStack, store: Engine
) -> None:
    first, first_hash = waiting(dev_stack, store)
    second, second_hash = waiting(dev_stack, store)
    changed, changed_hash = waiting(dev_stack, store)
    foreign, foreign_hash = waiting(dev_stack, store, "globex")
    body = {
        "items": [
            item(first, first_hash),
            item(foreign, foreign_hash),  # globex's run, in alice's batch
            item(changed, "cd" * 32),  # not the hash that waits
            item(second, second_hash),
        ],
        "verdict": "approve",
        "reason": "checked the photos",
    }
    answer = proxied.post("/api/approvals/batch", json=body, headers=as_user("alice"))
    assert answer.status_code == 200, answer.text
    document = answer.json()
    assert (document["succeeded"], document["failed"]) == (2, 2)
    results = document["results"]
    assert [result["run_id"] for result in results] == [
        first.run_id,
        foreign.run_id,
        changed.run_id,
        second.run_id,
    ]
    assert [result["outcome"] for result in results] == ["decided", "failed", "failed", "decided"]
    assert results[0]["status"] == results[3]["status"] == "approved"
    assert results[1]["message"] == NOT_IN_TENANT
    assert "No pending request has this hash" in results[2]["message"]
    # Each approval was carried out on its own order; the others still wait, untouched.
    for case in (first, second):
        (refund,) = refunded(store, case)
        assert refund.amount_minor == 6000
    assert wait_until_pending(dev_stack, foreign) == foreign_hash
    assert wait_until_pending(dev_stack, changed) == changed_hash
    assert list_refunds(store, foreign.tenant_id, foreign.order_id) == []
    # globex's own reviewer still decides it: the failed batch left nothing in its way.
    rejected = proxied.post(
        "/api/approvals/batch",
        json={
            "items": [item(foreign, foreign_hash)],
            "verdict": "reject",
            "reason": "no photo",
            "category": "needs_more_information",
        },
        headers=as_user("carol"),
    ).json()
    assert rejected["results"][0]["status"] == "rejected"


def test_api_refuses_a_malformed_batch_whole(proxied: TestClient, pending_case: RefundCase) -> None:
    alice = as_user("alice")
    detail = proxied.get(f"/api/approvals/{pending_case.run_id}", headers=alice).json()
    one = item(pending_case, detail["pending_actions"][0]["action_hash"])
    approve: dict[str, Any] = {"items": [one], "verdict": "approve"}

    too_many = {**approve, "items": [one] * (MAX_BATCH + 1)}
    answer = proxied.post("/api/approvals/batch", json=too_many, headers=alice)
    assert answer.status_code == 422
    assert f"at most {MAX_BATCH} items" in answer.json()["detail"]
    twice = proxied.post(
        "/api/approvals/batch", json={**approve, "items": [one, one]}, headers=alice
    )
    assert twice.status_code == 422 and "selected twice" in twice.json()["detail"]
    empty = proxied.post("/api/approvals/batch", json={**approve, "items": []}, headers=alice)
    assert empty.status_code == 422 and "body.items" in empty.json()["detail"]
    rejecting = {**approve, "verdict": "reject", "reason": "no"}
    no_category = proxied.post("/api/approvals/batch", json=rejecting, headers=alice)
    assert no_category.status_code == 422
    assert no_category.json()["detail"].startswith("Choose a category to reject: ")
    no_reason = {**rejecting, "reason": "  ", "category": "other"}
    blank = proxied.post("/api/approvals/batch", json=no_reason, headers=alice)
    assert blank.status_code == 422 and "reason is required" in blank.json()["detail"]
    # None of them was sent: the request still waits under its hash.
    assert wait_until_pending_hash(proxied, pending_case) == one["action_hash"]


def wait_until_pending_hash(client: TestClient, case: RefundCase) -> str:
    detail = client.get(f"/api/approvals/{case.run_id}", headers=as_user("alice")).json()
    assert detail["status"] == "waiting_for_approval", detail
    action_hash: str = detail["pending_actions"][0]["action_hash"]
    return action_hash


def test_api_batch_with_the_session_cookie_needs_the_csrf_header(
    ui: TestClient, pending_case: RefundCase
) -> None:
    sign_in(ui, "bob")
    token = ui.get("/api/me").json()["csrf_token"]
    action_hash = ui.get(f"/api/approvals/{pending_case.run_id}").json()["pending_actions"][0][
        "action_hash"
    ]
    body = {
        "items": [item(pending_case, action_hash)],
        "verdict": "reject",
        "reason": "not ours",
        "category": "not_eligible",
    }
    assert ui.post("/api/approvals/batch", json=body).status_code == 403
    answer = ui.post("/api/approvals/batch", json=body, headers={"X-CSRF-Token": token})
    assert answer.status_code == 200 and answer.json()["results"][0]["status"] == "rejected"


def test_an_approval_that_needs_a_passkey_is_left_to_its_own_page(
    app_settings: Settings, pending_case: RefundCase, store: Engine
) -> None:
    settings = app_settings.model_copy(update={"passkey_above": {"demo": Decimal("50.00")}})
    with TestClient(create_app(settings), follow_redirects=False) as client:
        csrf = sign_in(client, "alice")
        action_hash = client.get(f"/api/approvals/{pending_case.run_id}").json()["pending_actions"][
            0
        ]["action_hash"]
        key = f"{pending_case.run_id}/{action_hash}"
        review = client.post("/approvals/batch", data={"csrf_token": csrf, "selected": [key]})
        assert review.status_code == 200
        assert "decide it on its own page" in review.text
        decided = client.post(
            "/approvals/batch/decision",
            data={"csrf_token": csrf, "selected": [key], "verdict": "approve"},
        )
        assert decided.status_code == 200
        assert 'class="outcome-decide_alone"' in decided.text and DECIDE_ALONE in decided.text
        assert f'href="/approvals/{pending_case.run_id}">Open it' in decided.text
    assert list_refunds(store, pending_case.tenant_id, pending_case.order_id) == []


def test_the_inbox_batch_pages_sum_up_decide_and_keep_to_the_tenant(
    ui: TestClient, dev_stack: DevStack, store: Engine
) -> None:
    first, first_hash = waiting(dev_stack, store)
    second, second_hash = waiting(dev_stack, store)
    foreign, foreign_hash = waiting(dev_stack, store, "globex")
    csrf = sign_in(ui, "bob")
    keys = [f"{first.run_id}/{first_hash}", f"{second.run_id}/{second_hash}"]
    foreign_key = f"{foreign.run_id}/{foreign_hash}"

    # The inbox offers a labelled box per request, and a live region for the summary.
    inbox = ui.get("/approvals").text
    assert f'name="selected" value="{keys[0]}"' in inbox
    assert 'id="batch-summary" class="batch-summary" role="status" aria-live="polite"' in inbox
    summary = ui.get("/approvals/batch/summary", params={"selected": [*keys, foreign_key]}).text
    assert "2 requests selected" in summary  # globex's is not counted, nor named
    assert '<span class="batch-total" data-currency="EUR">120.00 EUR</span>' in summary
    assert '<span class="batch-mode" data-mode="confirm">2 with one reviewer</span>' in summary
    assert foreign.order_id not in summary
    # A poll keeps the boxes ticked.
    rows = ui.get("/approvals/rows", params={"selected": keys[0]}).text
    assert re.search(rf'value="{re.escape(keys[0])}" id="pick-{first_hash}" checked', rows)

    review = ui.post(
        "/approvals/batch", data={"csrf_token": csrf, "selected": [*keys, foreign_key]}
    )
    assert review.status_code == 200
    assert f'value="{keys[1]}"' in review.text and f'value="{foreign_key}"' not in review.text
    assert foreign.order_id not in review.text  # listed as not waiting, by run id only

    # A rejection without a category is refused whole; nothing is sent.
    no_category = ui.post(
        "/approvals/batch/decision",
        data={"csrf_token": csrf, "selected": keys, "verdict": "reject", "reason": "late"},
    )
    assert no_category.status_code == 400 and "Choose a category to reject" in no_category.text
    # The decision of the selection, and globex's key slipped into the form.
    decided = ui.post(
        "/approvals/batch/decision",
        data={
            "csrf_token": csrf,
            "selected": [keys[0], foreign_key, keys[1]],
            "verdict": "reject",
            "reason": "duplicates of an earlier ticket",
            "category": "not_eligible",
        },
    )
    assert decided.status_code == 200
    assert "Rejected: 2 of 3" in decided.text
    foreign_row = decided.text.split(f'data-run-id="{foreign.run_id}"')[1].split("</tr>")[0]
    assert "failed" in foreign_row and NOT_IN_TENANT in foreign_row
    assert wait_until_pending(dev_stack, foreign) == foreign_hash
    # Without the session's CSRF token, nothing is decided.
    no_token = {"selected": keys, "verdict": "approve"}
    assert ui.post("/approvals/batch/decision", data=no_token).status_code == 403
