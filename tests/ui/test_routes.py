"""Route tests: every page and every refusal, through FastAPI's TestClient, on real runs."""

from __future__ import annotations

import time

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import Engine

from approvals_ui.main import create_app
from signoff.config.settings import Settings
from tests.ui.conftest import DevStack, RefundCase, add_case, csrf_of, sign_in, start_run
from tests.ui.conftest import wait_until_pending as wait_pending

pytestmark = pytest.mark.devserver
COMPLETED_SECONDS = 30


def hash_on(page: str) -> str:
    marker = 'name="action_hash" value="'
    start = page.index(marker) + len(marker)
    return page[start : start + 64]


def decide(
    client: TestClient, run_id: str, token: str, action_hash: str, verdict: str, reason: str = ""
) -> object:
    return client.post(
        f"/approvals/{run_id}/decision",
        data={
            "csrf_token": token,
            "action_hash": action_hash,
            "verdict": verdict,
            "reason": reason,
            **({"category": "other"} if verdict == "reject" else {}),
        },
    )


def test_unauthenticated_html_goes_to_sign_in_and_htmx_gets_401(ui: TestClient) -> None:
    page = ui.get("/approvals")
    assert page.status_code == 303
    assert page.headers["location"] == "/signin?next=/approvals"
    fragment = ui.get("/approvals/rows", headers={"HX-Request": "true"})
    assert fragment.status_code == 401
    assert fragment.headers["HX-Redirect"] == "/signin"
    assert ui.get("/runs/run-demo-x").status_code == 303


def test_security_headers_on_every_answer(ui: TestClient) -> None:
    cookie = ui.get("/signin").headers["set-cookie"]
    assert "HttpOnly" in cookie and "SameSite=Lax" in cookie and "Secure" not in cookie
    for path in ("/signin", "/static/htmx.min.js", "/nowhere"):
        headers = ui.get(path).headers
        csp = headers["content-security-policy"]
        assert "script-src 'self'" in csp and "unsafe-inline" not in csp
        assert "frame-ancestors 'none'" in csp
        assert headers["x-content-type-options"] == "nosniff"
        assert headers["referrer-policy"] == "same-origin"


def test_sign_in_refuses_wrong_passwords_then_rate_limits(ui: TestClient) -> None:
    token = csrf_of(ui.get("/signin").text)
    for _ in range(5):
        wrong = ui.post(
            "/signin", data={"csrf_token": token, "username": "bob", "password": "guess-1234"}
        )
        assert wrong.status_code == 401
        assert "Wrong name or password." in wrong.text
    limited = ui.post(
        "/signin", data={"csrf_token": token, "username": "bob", "password": "demo-bob"}
    )
    assert limited.status_code == 429
    assert "Too many sign-in attempts" in limited.text


def test_sign_in_without_csrf_token_is_refused(ui: TestClient) -> None:
    ui.get("/signin")
    answer = ui.post("/signin", data={"username": "alice", "password": "demo-alice"})
    assert answer.status_code == 403
    assert "Reload the page" in answer.text


def test_sign_in_redirects_only_within_the_site(ui: TestClient) -> None:
    token = csrf_of(ui.get("/signin").text)
    answer = ui.post(
        "/signin",
        data={
            "csrf_token": token,
            "username": "alice",
            "password": "demo-alice",
            "next": "//evil.example/",
        },
    )
    assert answer.status_code == 303 and answer.headers["location"] == "/approvals"


def test_inbox_lists_the_tenants_pending_refund(ui: TestClient, pending_case: RefundCase) -> None:
    sign_in(ui, "alice")
    inbox = ui.get("/approvals")
    assert inbox.status_code == 200
    assert f'data-run-id="{pending_case.run_id}"' in inbox.text
    assert f'Refund 60.00 EUR on order <bdi class="id">{pending_case.order_id}</bdi>' in inbox.text
    assert "<dd>one reviewer</dd>" in inbox.text
    assert "arrived damaged" in inbox.text  # the ticket excerpt
    assert 'hx-get="/approvals/rows" hx-trigger="every 5s"' in inbox.text
    fragment = ui.get("/approvals/rows", headers={"HX-Request": "true"})
    assert pending_case.run_id in fragment.text and "<html" not in fragment.text


def test_detail_shows_what_is_decided(ui: TestClient, pending_case: RefundCase) -> None:
    sign_in(ui, "alice")
    page = ui.get(f"/approvals/{pending_case.run_id}")
    assert page.status_code == 200
    text = page.text
    assert "Unverified customer text, exactly as written" in text
    assert "the lamp is broken" in text
    assert "60.00 EUR" in text  # proposed and paid
    assert "No refund has been made on this order." in text
    assert "full refund of the amount paid" in text  # the agent's stated reason
    assert "one reviewer approves" in text
    assert hash_on(text)[:12] in text
    assert "hr 59 min left" in text or "hr 58 min left" in text


def test_other_tenant_gets_404_everywhere(ui: TestClient, pending_case: RefundCase) -> None:
    token = sign_in(ui, "carol")  # tenant globex
    assert pending_case.run_id not in ui.get("/approvals").text
    assert ui.get(f"/approvals/{pending_case.run_id}").status_code == 404
    assert ui.get(f"/runs/{pending_case.run_id}").status_code == 404
    forged = decide(ui, pending_case.run_id, token, "0" * 64, "approve")
    assert forged.status_code == 404  # type: ignore[attr-defined]
    assert ui.get("/approvals/run-demo-does-not-exist").status_code == 404


def test_bad_csrf_token_changes_nothing(
    ui: TestClient, pending_case: RefundCase, dev_stack: DevStack
) -> None:
    sign_in(ui, "alice")
    action_hash = hash_on(ui.get(f"/approvals/{pending_case.run_id}").text)
    answer = decide(ui, pending_case.run_id, "forged-token", action_hash, "approve")
    assert answer.status_code == 403  # type: ignore[attr-defined]
    assert wait_pending(dev_stack, pending_case) == action_hash  # still waiting


def test_stale_hash_is_refused_in_plain_words(ui: TestClient, pending_case: RefundCase) -> None:
    token = sign_in(ui, "alice")
    answer = decide(ui, pending_case.run_id, token, "ab" * 32, "approve")
    assert answer.status_code == 409  # type: ignore[attr-defined]
    assert "No pending request has this hash in this run" in answer.text  # type: ignore[attr-defined]
    malformed = decide(ui, pending_case.run_id, token, "not-a-hash", "approve")
    assert malformed.status_code == 400  # type: ignore[attr-defined]
    assert "did not carry a valid action hash" in malformed.text  # type: ignore[attr-defined]


def test_reviewer_without_role_cannot_decide(ui: TestClient, pending_case: RefundCase) -> None:
    token = sign_in(ui, "dave")
    page = ui.get(f"/approvals/{pending_case.run_id}")
    assert "you do not have the refund approver role" in page.text
    assert 'name="verdict"' not in page.text
    answer = decide(ui, pending_case.run_id, token, "ab" * 32, "approve")
    assert answer.status_code == 403  # type: ignore[attr-defined]
    assert "You do not have the refund approver role" in answer.text  # type: ignore[attr-defined]


def test_reject_needs_a_reason_then_ends_the_run_without_refund(
    ui: TestClient, pending_case: RefundCase, store: Engine
) -> None:
    token = sign_in(ui, "bob")
    action_hash = hash_on(ui.get(f"/approvals/{pending_case.run_id}").text)
    empty = decide(ui, pending_case.run_id, token, action_hash, "reject", "  ")
    assert empty.status_code == 409  # type: ignore[attr-defined]
    assert "A reason is required to reject." in empty.text  # type: ignore[attr-defined]
    rejected = decide(ui, pending_case.run_id, token, action_hash, "reject", "photo missing")
    assert rejected.status_code == 303  # type: ignore[attr-defined]
    assert "Rejected." in ui.get(f"/approvals/{pending_case.run_id}").text
    timeline = wait_completed(ui, pending_case.run_id)
    assert "rejected" in timeline and "photo missing" in timeline
    assert "no refund was made" in timeline


def test_approve_executes_once_and_the_timeline_shows_it(
    ui: TestClient, pending_case: RefundCase
) -> None:
    token = sign_in(ui, "alice")
    action_hash = hash_on(ui.get(f"/approvals/{pending_case.run_id}").text)
    approved = decide(ui, pending_case.run_id, token, action_hash, "approve")
    assert approved.status_code == 303  # type: ignore[attr-defined]
    # An inbox poll in another tab comes first: the notice waits for the page opened.
    polled = ui.get("/approvals/rows", headers={"HX-Request": "true"})
    assert polled.status_code == 200 and "Approved." not in polled.text
    after = ui.get(f"/approvals/{pending_case.run_id}").text
    assert "Approved." in after
    timeline = wait_completed(ui, pending_case.run_id)
    assert "approved" in timeline and "alice" in timeline
    assert f"refund 60.00 EUR on order {pending_case.order_id}" in timeline
    assert "Tokens" in timeline
    # Cost and usage per turn are on the run page (scripted: free, but every turn listed).
    assert '<dd id="run-cost">0.000000 USD</dd>' in timeline
    assert "Usage per turn" in timeline and "Cache read" in timeline
    again = decide(ui, pending_case.run_id, token, action_hash, "approve")
    assert again.status_code == 409  # type: ignore[attr-defined]
    detail = ui.get(f"/approvals/{pending_case.run_id}").text
    assert "Nothing in this run waits for a decision now" in detail
    assert "alice" in detail.split("Prior refunds on this order")[1]  # the ledger's approver


def test_four_eyes_records_the_first_approval(
    ui: TestClient, dev_stack: DevStack, store: Engine, app_settings: Settings
) -> None:
    case = add_case(store)
    with store.begin() as connection:  # above the 200.00 threshold: two reviewers
        connection.exec_driver_sql(
            "UPDATE orders SET amount_paid_minor = 35000 WHERE id = ?", (case.order_id,)
        )
    start_run(dev_stack, case)
    wait_pending(dev_stack, case)
    token = sign_in(ui, "alice")
    page = ui.get(f"/approvals/{case.run_id}").text
    assert "four eyes" in page
    first = decide(ui, case.run_id, token, hash_on(page), "approve")
    assert first.status_code == 303  # type: ignore[attr-defined]
    after = ui.get(f"/approvals/{case.run_id}").text
    assert "need a second reviewer; your approval is recorded" in after
    # Alice's page no longer offers a decision she may not make; a replayed form is
    # still refused by the workflow.
    assert 'id="approved-by-you"' in after and 'name="verdict"' not in after
    twice = decide(ui, case.run_id, token, hash_on(page), "approve")
    assert twice.status_code == 409  # type: ignore[attr-defined]
    assert "You already approved this request" in twice.text  # type: ignore[attr-defined]
    with TestClient(create_app(app_settings), follow_redirects=False) as bob:
        sign_in(bob, "bob")
        for_bob = bob.get(f"/approvals/{case.run_id}").text
    assert 'name="verdict"' in for_bob and 'id="approved-by-you"' not in for_bob
    assert "(1 so far: alice)" in for_bob


def wait_completed(client: TestClient, run_id: str) -> str:
    deadline = time.monotonic() + COMPLETED_SECONDS
    while True:
        page = client.get(f"/runs/{run_id}")
        assert page.status_code == 200
        if 'id="run-status">completed' in page.text:
            return page.text
        assert time.monotonic() < deadline, page.text
        time.sleep(0.3)


def test_a_reviewer_cannot_approve_a_run_they_asked_for(
    ui: TestClient, dev_stack: DevStack, store: Engine
) -> None:
    case = add_case(store)
    request_id = case.run_id.removeprefix(f"run-{case.tenant_id}-")
    # alice proves who she is (her password): the run's actor is who really asked.
    run = ["run", "--ticket", case.ticket_id, "--request-id", request_id, "--as", "alice"]
    started = dev_stack.signoff(*run, "--password-stdin", stdin="demo-alice\n")
    assert started.returncode == 0, started.stderr
    action_hash = wait_pending(dev_stack, case)

    token = sign_in(ui, "alice")
    page = ui.get(f"/approvals/{case.run_id}").text
    answer = decide(ui, case.run_id, token, action_hash, "approve")

    # The page says so instead of offering buttons; a forged post is still refused.
    assert 'id="your-own-run"' in page and 'name="verdict"' not in page
    assert answer.status_code == 409  # type: ignore[attr-defined]
    assert "You asked for this run yourself" in answer.text  # type: ignore[attr-defined]
    assert wait_pending(dev_stack, case) == action_hash  # still waiting for someone else
