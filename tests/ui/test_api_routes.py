"""The JSON API, proxy mode and the audit page on real runs of the dev stack."""

from __future__ import annotations

import csv
import io
import time
from collections.abc import Iterator
from datetime import UTC, datetime

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import Engine

from approvals_ui.main import create_app
from signoff.config.settings import Settings
from tests.ui.conftest import (
    DevStack,
    RefundCase,
    change_order_meanwhile,
    sign_in,
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


def decide(client: TestClient, run_id: str, user: str, body: dict[str, str]) -> object:
    return client.post(f"/api/approvals/{run_id}/decision", json=body, headers=as_user(user))


def test_api_reads_what_the_pages_show(proxied: TestClient, pending_case: RefundCase) -> None:
    listed = proxied.get("/api/approvals", headers=as_user("alice"))
    assert listed.status_code == 200
    items = {item["run_id"]: item for item in listed.json()["items"]}
    item = items[pending_case.run_id]
    assert item["action"]["arguments"]["amount"] == "60.00"
    assert item["action"]["targets"]["order_id"] == pending_case.order_id
    assert "arrived damaged" in item["ticket_excerpt"]
    detail = proxied.get(f"/api/approvals/{pending_case.run_id}", headers=as_user("alice")).json()
    assert detail["ticket"]["text"].startswith("Hello, my parcel arrived damaged")
    assert detail["prior_refunds"] == [] and detail["status"] == "waiting_for_approval"
    run = proxied.get(f"/api/runs/{pending_case.run_id}", headers=as_user("alice")).json()
    assert run["pending_actions"][0]["action_hash"] == detail["pending_actions"][0]["action_hash"]
    # Another tenant's reviewer: 404 for the run, and it is not listed.
    assert (
        proxied.get(f"/api/runs/{pending_case.run_id}", headers=as_user("carol")).status_code == 404
    )
    carol = proxied.get("/api/approvals", headers=as_user("carol")).json()
    assert pending_case.run_id not in {item["run_id"] for item in carol["items"]}


def test_api_decision_refusals_then_approval(proxied: TestClient, pending_case: RefundCase) -> None:
    run_id = pending_case.run_id
    detail = proxied.get(f"/api/approvals/{run_id}", headers=as_user("alice")).json()
    action_hash = detail["pending_actions"][0]["action_hash"]
    approve = {"action_hash": action_hash, "verdict": "approve", "reason": ""}
    other_tenant = decide(proxied, run_id, "carol", approve)
    assert other_tenant.status_code == 404  # type: ignore[attr-defined]
    no_role = decide(proxied, run_id, "dave", approve)
    assert no_role.status_code == 403  # type: ignore[attr-defined]
    stale = decide(proxied, run_id, "alice", {**approve, "action_hash": "cd" * 32})
    assert stale.status_code == 409  # type: ignore[attr-defined]
    assert "No pending request has this hash" in stale.json()["detail"]  # type: ignore[attr-defined]
    no_category = decide(proxied, run_id, "alice", {**approve, "verdict": "reject"})
    assert no_category.status_code == 422  # type: ignore[attr-defined]
    assert no_category.json()["detail"].startswith("Choose a category to reject: ")  # type: ignore[attr-defined]
    rejecting = {**approve, "verdict": "reject", "category": "other"}
    no_reason = decide(proxied, run_id, "alice", rejecting)
    assert no_reason.json() == {"detail": "A reason is required to reject."}  # type: ignore[attr-defined]
    approved = decide(proxied, run_id, "alice", approve)
    assert approved.status_code == 200  # type: ignore[attr-defined]
    assert approved.json()["status"] == "approved"  # type: ignore[attr-defined]
    again = decide(proxied, run_id, "bob", approve)
    assert again.status_code == 409  # type: ignore[attr-defined]


def test_api_decision_with_the_session_cookie_and_csrf_header(
    ui: TestClient, pending_case: RefundCase
) -> None:
    sign_in(ui, "bob")
    token = ui.get("/api/me").json()["csrf_token"]
    detail = ui.get(f"/api/approvals/{pending_case.run_id}").json()
    body = {
        "action_hash": detail["pending_actions"][0]["action_hash"],
        "verdict": "reject",
        "reason": '=HYPERLINK("http://evil.test","photos")',
        "category": "needs_more_information",
    }
    url = f"/api/approvals/{pending_case.run_id}/decision"
    assert ui.post(url, json=body).status_code == 403  # no X-CSRF-Token
    rejected = ui.post(url, json=body, headers={"X-CSRF-Token": token})
    assert rejected.status_code == 200 and rejected.json()["status"] == "rejected"
    # The audit lists the rejection, filters it, and exports it without a live formula.
    rows = wait_for_audit(ui, pending_case.run_id, "rejected")
    assert "bob" in rows and "HYPERLINK" in rows and pending_case.order_id in rows
    assert "60.00 EUR" in rows  # a rejected refund still says how much it was
    only_alice = ui.get("/audit?reviewer=alice&verdict=rejected").text
    assert f'data-run-id="{pending_case.run_id}"' not in only_alice
    today = datetime.now(UTC).date().isoformat()
    exported = ui.get(f"/audit.csv?reviewer=bob&verdict=rejected&from={today}&to={today}")
    assert exported.status_code == 200 and exported.headers["content-type"].startswith("text/csv")
    assert "attachment" in exported.headers["content-disposition"]
    records = list(csv.DictReader(io.StringIO(exported.text)))
    mine = [row for row in records if row["run_id"] == pending_case.run_id]
    assert len(mine) == 1 and {row["verdict"] for row in records} == {"rejected"}
    # The category leads the reason, so the reviewer's formula is no cell's start.
    assert mine[0]["reason"] == "needs more information: " + body["reason"]
    assert mine[0]["order"] == pending_case.order_id and mine[0]["reviewer"] == "bob"
    assert (mine[0]["amount"], mine[0]["currency"]) == ("60.00", "EUR")


def test_audit_shows_an_approval_with_its_amount(
    ui: TestClient, proxied: TestClient, pending_case: RefundCase
) -> None:
    detail = proxied.get(f"/api/approvals/{pending_case.run_id}", headers=as_user("alice")).json()
    action_hash = detail["pending_actions"][0]["action_hash"]
    body = {"action_hash": action_hash, "verdict": "approve"}
    assert decide(proxied, pending_case.run_id, "alice", body).status_code == 200  # type: ignore[attr-defined]
    sign_in(ui, "alice")
    deadline = time.monotonic() + SETTLE_SECONDS
    while True:  # the amount comes from the ledger once the refund executed
        page = ui.get("/audit?verdict=approved&reviewer=alice").text
        row = page.split(f'data-run-id="{pending_case.run_id}"')[-1].split("</tr>")[0]
        if "60.00 EUR" in row:
            break
        assert time.monotonic() < deadline, page
        time.sleep(0.3)
    assert pending_case.order_id in row and action_hash[:12] in row
    assert 'href="/audit"' in page  # linked in the nav


def test_a_voided_hash_is_refused_and_the_new_version_shown(
    proxied: TestClient, pending_case: RefundCase, dev_stack: DevStack, store: Engine
) -> None:
    run_id = pending_case.run_id
    old_hash = wait_until_pending(dev_stack, pending_case)
    change_order_meanwhile(store, pending_case)
    approved = decide(proxied, run_id, "alice", {"action_hash": old_hash, "verdict": "approve"})
    assert approved.status_code == 200  # type: ignore[attr-defined]
    deadline = time.monotonic() + SETTLE_SECONDS
    while (new_hash := wait_until_pending(dev_stack, pending_case)) == old_hash:
        assert time.monotonic() < deadline
        time.sleep(0.3)
    again = decide(proxied, run_id, "bob", {"action_hash": old_hash, "verdict": "approve"})
    assert again.status_code == 409  # type: ignore[attr-defined]
    assert again.json()["detail"] == (  # type: ignore[attr-defined]
        "This request changed since you opened it; review the new version."
    )
    page = proxied.get(f"/approvals/{run_id}", headers=as_user("bob")).text
    assert "replaces an earlier one whose approval went void" in page
    assert new_hash in page and "10.00 EUR" in page  # the refund that landed meanwhile
    # The expiry counts down in the page, by a static script the CSP allows.
    assert 'role="timer" data-expires-at="' in page
    assert '<script src="/static/countdown.js" defer></script>' in page


def wait_for_audit(client: TestClient, run_id: str, kind: str) -> str:
    deadline = time.monotonic() + SETTLE_SECONDS
    while True:
        page = client.get(f"/audit?verdict={kind}")
        assert page.status_code == 200, page.text
        marker = f'data-run-id="{run_id}" data-kind="{kind}"'
        if marker in page.text:
            return page.text.split(marker)[1].split("</tr>")[0]
        assert time.monotonic() < deadline, page.text
        time.sleep(0.3)


def test_a_reviewer_answers_the_agent_through_the_api_and_the_audit_shows_it(
    proxied: TestClient, ui: TestClient, pending_case: RefundCase
) -> None:
    """Respond (issue 44): not a rejection, no category; words are required; the
    request ends without happening and the audit lists the signed response."""
    run_id = pending_case.run_id
    detail = proxied.get(f"/api/approvals/{run_id}", headers=as_user("alice")).json()
    action_hash = detail["pending_actions"][0]["action_hash"]
    wordless = {"action_hash": action_hash, "verdict": "respond", "reason": "  "}
    refused = decide(proxied, run_id, "alice", wordless)
    assert refused.status_code == 422  # type: ignore[attr-defined]
    assert "a response is its words" in refused.json()["detail"]  # type: ignore[attr-defined]
    with_category = {**wordless, "reason": "check tracking", "category": "other"}
    assert decide(proxied, run_id, "alice", with_category).status_code == 422  # type: ignore[attr-defined]
    words = {**wordless, "reason": "Check the carrier's tracking first"}
    answered = decide(proxied, run_id, "alice", words)
    assert answered.status_code == 200, answered.json()  # type: ignore[attr-defined]
    assert answered.json()["status"] == "responded"  # type: ignore[attr-defined]
    sign_in(ui, "alice")
    row = wait_for_audit(ui, run_id, "responded")
    assert "alice" in row and "Check the carrier" in row
