"""The JSON API, proxy mode and audit filters where no Temporal is needed: auth, CSRF,
error bodies, the OpenAPI schema, and a Temporal that cannot be reached (503 JSON)."""

from __future__ import annotations

import html
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from approvals_ui.audit import InvalidFilter, parse_filter
from approvals_ui.main import create_app
from approvals_ui.routers.audit import safe_cell
from signoff.config.settings import Settings
from signoff.service.decisions import UNAVAILABLE
from tests.conftest import fresh_demo_store

HASH = "ab" * 32


async def unreachable_connect(_: Settings) -> Any:
    raise RuntimeError("connection refused at 10.0.0.1:7233")


@pytest.fixture
def home(tmp_path: Path, demo_store_template: Path) -> Path:
    engine = fresh_demo_store(demo_store_template, tmp_path / "signoff.db")
    engine.dispose()
    return tmp_path


def client_for(home: Path, **settings: Any) -> TestClient:
    app = create_app(Settings(home=home, **settings), temporal_connect=unreachable_connect)
    return TestClient(app, follow_redirects=False)


@pytest.fixture
def ui(home: Path) -> Iterator[TestClient]:
    with client_for(home) as client:
        yield client


@pytest.fixture
def proxied(home: Path) -> Iterator[TestClient]:
    with client_for(home, auth="proxy") as client:
        yield client


def sign_in(client: TestClient, name: str = "alice") -> None:
    token = client.get("/signin").text.split('name="csrf_token" value="')[1].split('"')[0]
    answer = client.post(
        "/signin", data={"csrf_token": token, "username": name, "password": f"demo-{name}"}
    )
    assert answer.status_code == 303


def test_api_without_sign_in_is_401_json_never_a_redirect(ui: TestClient) -> None:
    for path in ("/api/me", "/api/approvals", "/api/approvals/run-demo-x", "/api/runs/run-x"):
        answer = ui.get(path)
        assert answer.status_code == 401, path
        assert answer.json() == {"detail": "Sign in first."}
        assert "location" not in answer.headers and "hx-redirect" not in answer.headers
    posted = ui.post(
        "/api/approvals/run-demo-x/decision", json={"action_hash": HASH, "verdict": "approve"}
    )
    assert posted.status_code == 401 and posted.json() == {"detail": "Sign in first."}


def test_api_post_with_the_cookie_needs_the_csrf_header_and_json(ui: TestClient) -> None:
    sign_in(ui)
    me = ui.get("/api/me").json()
    assert me["id"] == "alice" and me["tenant_id"] == "demo" and me["can_decide"] is True
    url, body = "/api/approvals/run-demo-x/decision", {"action_hash": HASH, "verdict": "approve"}
    no_token = ui.post(url, json=body)
    assert (
        no_token.status_code == 403 and "did not come from this site" in no_token.json()["detail"]
    )
    wrong = ui.post(url, json=body, headers={"X-CSRF-Token": "forged"})
    assert wrong.status_code == 403
    form = ui.post(url, data=body, headers={"X-CSRF-Token": me["csrf_token"]})
    assert form.status_code == 415 and "application/json" in form.json()["detail"]
    other_site = ui.post(
        url, json=body, headers={"X-CSRF-Token": me["csrf_token"], "Origin": "https://evil.test"}
    )
    assert other_site.status_code == 403
    # With the token the request gets as far as Temporal, which is down here.
    down = ui.post(url, json=body, headers={"X-CSRF-Token": me["csrf_token"]})
    assert down.status_code == 503
    # The sentence every face gives (page, API, `signoff approve`): one decide function.
    assert down.json() == {"detail": UNAVAILABLE}
    assert "10.0.0.1" not in down.text


def test_api_validation_errors_are_422_with_a_plain_detail(ui: TestClient) -> None:
    sign_in(ui)
    token = ui.get("/api/me").json()["csrf_token"]
    answer = ui.post(
        "/api/approvals/run-demo-x/decision",
        json={"action_hash": "not-a-hash", "verdict": "maybe"},
        headers={"X-CSRF-Token": token},
    )
    assert answer.status_code == 422
    detail = answer.json()["detail"]
    assert isinstance(detail, str) and "body.action_hash" in detail and "body.verdict" in detail
    assert "not-a-hash" not in detail  # where and what, never the input echoed


def test_openapi_documents_only_the_api(ui: TestClient) -> None:
    schema = ui.get("/api/openapi.json").json()
    assert set(schema["paths"]) == {
        "/api/me",
        "/api/approvals",
        "/api/approvals/{run_id}",
        "/api/approvals/{run_id}/decision",
        "/api/approvals/batch",
        "/api/runs/{run_id}",
        "/api/audit",
        "/api/intake/tickets",
        "/api/intake/replies",
        "/api/slack/actions",
        "/api/rules",
        "/api/rules/{rule_id}/revoke",
    }
    intake = schema["paths"]["/api/intake/tickets"]["post"]
    assert {"200", "202", "401", "422", "503"} <= set(intake["responses"])
    replies = schema["paths"]["/api/intake/replies"]["post"]
    assert {"202", "401", "404", "409", "422", "503"} <= set(replies["responses"])
    audit = schema["paths"]["/api/audit"]["get"]
    assert {"200", "400", "401", "403", "422"} <= set(audit["responses"])
    decision = schema["paths"]["/api/approvals/{run_id}/decision"]["post"]
    assert {"200", "401", "403", "404", "409", "415", "422", "503"} <= set(decision["responses"])
    assert decision["responses"]["409"]["content"]["application/json"]["schema"] == {
        "$ref": "#/components/schemas/ApiError"
    }
    assert any(parameter["name"] == "X-CSRF-Token" for parameter in decision["parameters"])
    assert ui.get("/docs").status_code == 404  # no docs page: it would need inline script


def test_proxy_mode_takes_the_reviewer_from_the_header(proxied: TestClient) -> None:
    me = proxied.get("/api/me", headers={"X-Forwarded-User": "bob"})
    assert me.status_code == 200
    assert me.json()["id"] == "bob" and me.json()["csrf_token"] is None
    page = proxied.get("/audit?verdict=nonsense", headers={"X-Forwarded-User": "bob"})
    assert page.status_code == 400  # signed in as bob: the filter is judged
    assert "Sign out" not in proxied.get("/signin", headers={"X-Forwarded-User": "bob"}).text


def test_proxy_mode_without_the_header_is_401_and_no_password_sign_in(
    proxied: TestClient,
) -> None:
    assert proxied.get("/api/approvals").status_code == 401
    page = proxied.get("/approvals")
    assert page.status_code == 401 and "auth proxy" in page.text  # no redirect loop
    assert proxied.get("/signin").status_code == 401
    posted = proxied.post("/signin", data={"username": "alice", "password": "demo-alice"})
    assert posted.status_code == 403  # CSRF or "password sign-in is off": never a session
    assert "set-cookie" not in posted.headers or "reviewer" not in posted.headers["set-cookie"]


def test_proxy_mode_refuses_an_unknown_or_malformed_name(proxied: TestClient) -> None:
    for name in ("mallory", "a b", "x" * 300):
        answer = proxied.get("/api/me", headers={"X-Forwarded-User": name})
        assert answer.status_code == 403, name
        assert "not a reviewer here" in answer.json()["detail"]
    assert proxied.get("/approvals", headers={"X-Forwarded-User": "mallory"}).status_code == 403


def test_proxy_mode_uses_the_configured_header(home: Path) -> None:
    with client_for(home, auth="proxy", auth_header="X-Auth-Request-User") as client:
        assert client.get("/api/me", headers={"X-Forwarded-User": "bob"}).status_code == 401
        answer = client.get("/api/me", headers={"X-Auth-Request-User": "carol"})
        assert answer.json()["tenant_id"] == "globex"


def test_session_mode_ignores_the_proxy_header(ui: TestClient) -> None:
    assert ui.get("/api/me", headers={"X-Forwarded-User": "alice"}).status_code == 401
    assert ui.get("/approvals", headers={"X-Forwarded-User": "alice"}).status_code == 303


def test_audit_filters_are_validated_with_a_message(ui: TestClient) -> None:
    sign_in(ui)
    cases = {
        "/audit?verdict=maybe": "must be one of: approved, rejected, expired",
        "/audit?from=yesterday": "must look like 2026-01-31",
        "/audit?from=2026-02-01&to=2026-01-01": "'from' date is after the 'to' date",
        "/audit?reviewer=a%20b": "not a reviewer name",
        "/audit?before=0": "'before' cursor must be a whole number",
        "/api/audit?verdict=maybe": "must be one of: approved, rejected, expired",
        "/audit.csv?to=31.01.2026": "must look like 2026-01-31",
    }
    for path, message in cases.items():
        answer = ui.get(path)
        assert answer.status_code == 400, path
        assert message in html.unescape(answer.text), path
    # The audit is the store's: Temporal is down here, and it still answers.
    page = ui.get("/audit?verdict=&reviewer=&from=&to=")
    assert page.status_code == 200 and "No decision matches." in page.text


def test_parse_filter_accepts_empty_fields_and_dates() -> None:
    chosen = parse_filter("bob", "rejected", "2026-01-01", "2026-01-31")
    assert (
        chosen.query(page=2) == "reviewer=bob&verdict=rejected&from=2026-01-01&to=2026-01-31&page=2"
    )
    assert parse_filter("", "", "", "").query() == ""
    with pytest.raises(InvalidFilter):
        parse_filter(None, "approve", None, None)  # a verdict, not a decision kind


@pytest.mark.parametrize(
    ("value", "cell"),
    [
        ('=HYPERLINK("http://evil")', '\'=HYPERLINK("http://evil")'),
        ("+1", "'+1"),
        ("-2", "'-2"),
        ("@SUM(A1)", "'@SUM(A1)"),
        ("\tx", "'\tx"),
        ("photo missing", "photo missing"),
        ("60.00", "60.00"),
    ],
)
def test_csv_cells_cannot_be_formulas(value: str, cell: str) -> None:
    assert safe_cell(value) == cell


def test_the_session_cookie_is_secure_over_https(home: Path) -> None:
    app = create_app(Settings(home=home), temporal_connect=unreachable_connect)
    with TestClient(app, base_url="https://testserver", follow_redirects=False) as client:
        cookie = client.get("/signin").headers["set-cookie"]
        assert "Secure" in cookie and "HttpOnly" in cookie and "SameSite=Lax" in cookie
        sign_in(client)
        assert client.get("/api/me").json()["id"] == "alice"  # the Secure cookie came back
    # Over plain http (the local default) the cookie cannot be Secure, or no browser
    # would send it back.
    with client_for(home) as plain:
        assert "Secure" not in plain.get("/signin").headers["set-cookie"]


def test_the_decision_page_says_the_same_sentence_when_temporal_is_down(ui: TestClient) -> None:
    sign_in(ui)
    token = ui.get("/api/me").json()["csrf_token"]
    page = ui.post(
        "/approvals/run-demo-x/decision",
        data={"csrf_token": token, "action_hash": HASH, "verdict": "approve"},
    )
    assert page.status_code == 503
    assert "text/html" in page.headers["content-type"]
    assert UNAVAILABLE in page.text
