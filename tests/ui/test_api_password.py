"""The decision service's API takes a reviewer's password as HTTP Basic: how `signoff
approve --password-stdin` decides without a key of its own. It is the sign-in page's
check, with its rate limit; it never asks a browser for credentials; proxy mode has no
password sign-in, here either."""

from __future__ import annotations

import base64
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from activities.store import make_engine
from activities.store.reviewer_accounts import set_active
from tests.admin import ADMIN
from tests.ui.test_api_offline import client_for, home

HASH = "ab" * 32
__all__ = ["home"]  # the fixture, shared


def basic(name: str, password: str) -> dict[str, str]:
    pair = base64.b64encode(f"{name}:{password}".encode()).decode()
    return {"Authorization": f"Basic {pair}"}


@pytest.fixture
def ui(home: Path) -> Iterator[TestClient]:
    with client_for(home, ui_signin_attempts=3) as client:
        yield client


def test_the_right_password_is_the_reviewer(ui: TestClient) -> None:
    me = ui.get("/api/me", headers=basic("alice", "demo-alice"))
    assert me.status_code == 200 and me.json()["id"] == "alice"
    # No cookie and no CSRF token: the credential rides in the header, as a token does.
    decided = ui.post(
        "/api/approvals/run-demo-x/decision",
        json={"action_hash": HASH, "verdict": "approve"},
        headers=basic("alice", "demo-alice"),
    )
    assert decided.status_code == 503  # it reached Temporal, which is down here


def test_a_wrong_password_is_401_and_never_a_browser_prompt(ui: TestClient) -> None:
    for headers in (
        basic("alice", "demo-bob"),
        basic("mallory", "anything"),
        {"Authorization": "Basic not-base64!"},
        {"Authorization": "Basic " + base64.b64encode(b"no-colon").decode()},
    ):
        answer = ui.get("/api/me", headers=headers)
        assert answer.status_code == 401, headers
        assert "www-authenticate" not in answer.headers
    assert (
        "Wrong password for 'alice'"
        in ui.get("/api/me", headers=basic("alice", "nope")).json()["detail"]
    )


def test_guessing_is_rate_limited_like_the_sign_in_page(ui: TestClient) -> None:
    for _ in range(3):
        assert ui.get("/api/me", headers=basic("bob", "guess")).status_code == 401
    limited = ui.get("/api/me", headers=basic("bob", "demo-bob"))  # even the right one
    assert limited.status_code == 429 and "Too many sign-in attempts" in limited.json()["detail"]


def test_a_disabled_reviewer_is_refused_after_the_password(home: Path) -> None:
    engine = make_engine(f"sqlite:///{home / 'signoff.db'}")
    set_active(engine, ADMIN, "bob", False)
    engine.dispose()
    with client_for(home) as client:
        answer = client.get("/api/me", headers=basic("bob", "demo-bob"))
    assert answer.status_code == 403 and "disabled" in answer.json()["detail"]


def test_proxy_mode_takes_no_password(home: Path) -> None:
    with client_for(home, auth="proxy") as proxied:
        answer = proxied.get("/api/me", headers=basic("alice", "demo-alice"))
    assert answer.status_code == 403 and "auth proxy" in answer.json()["detail"]
