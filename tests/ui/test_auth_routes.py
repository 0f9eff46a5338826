"""Sign-in, sessions and accounts through the routes (issue 9), on a seeded store with
no Temporal (`/api/me` answers who is signed in without it).

Each trust boundary here is attacked: a flood of wrong passwords from one address, a
cookie saved before sign-out, a second spelling of a name, a disabled reviewer's
session, token and proxy header, a bearer token that is wrong or revoked.
"""

from __future__ import annotations

import asyncio
import re
from collections import Counter
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from pydantic import SecretStr
from sqlalchemy import Engine

from activities.store import (
    change_roles,
    issue_token,
    revoke_tokens,
    set_active,
    set_password,
)
from approvals_ui.main import create_app
from approvals_ui.sessions import COOKIE_NAME, UnsafeSecret
from signoff.config.settings import Settings
from signoff.service.handles import Store
from tests.admin import ADMIN
from tests.clock import clock_now
from tests.conftest import fresh_demo_store

HASH = "ab" * 32
DECISION = "/api/approvals/run-demo-x/decision"
DAY = timedelta(days=1)


async def unreachable_connect(_: Settings) -> Any:
    raise RuntimeError("connection refused")


@pytest.fixture
def home(tmp_path: Path) -> Path:
    return tmp_path


@pytest.fixture
def store(home: Path, demo_store_template: Path) -> Iterator[Engine]:
    engine = fresh_demo_store(demo_store_template, home / "signoff.db")
    yield engine
    engine.dispose()


def make_app(home: Path, store: Engine, **settings: Any) -> FastAPI:
    return create_app(
        Settings(home=home, **settings), temporal_connect=unreachable_connect, engine=Store(store)
    )


@pytest.fixture
def app(home: Path, store: Engine) -> FastAPI:
    return make_app(home, store)


def client_at(app: FastAPI, address: str = "10.0.0.9") -> TestClient:
    """A browser at `address`: the limiter counts by the client's address."""
    return TestClient(app, follow_redirects=False, client=(address, 50000))


def csrf_of(client: TestClient) -> str:
    page = client.get("/signin").text
    return page.split('name="csrf_token" value="')[1].split('"')[0]


def try_sign_in(client: TestClient, name: str, password: str) -> Any:
    return client.post(
        "/signin", data={"csrf_token": csrf_of(client), "username": name, "password": password}
    )


def whoami(client: TestClient, **headers: str) -> str | None:
    answer = client.get("/api/me", headers=headers)
    if answer.status_code == 401:
        return None
    assert answer.status_code == 200, answer.text
    return str(answer.json()["id"])


def test_a_flood_on_alice_from_one_address_leaves_her_own_address_open(app: FastAPI) -> None:
    with client_at(app, "10.0.0.1") as attacker, client_at(app, "10.0.0.2") as alice:
        for _ in range(6):
            wrong = try_sign_in(attacker, "alice", "guess-1234")
            assert wrong.status_code in (401, 429)
        limited = try_sign_in(attacker, "alice", "demo-alice")
        assert limited.status_code == 429
        # The lockout's 30 s count from the attempt that set it: the six password checks
        # before this one may have taken a second or more on a loaded machine.
        said = re.search(r"Too many sign-in attempts\. Try again in (\d+) seconds\.", limited.text)
        assert said is not None, limited.text
        assert 0 < int(said.group(1)) <= 30
        assert whoami(attacker) is None
        assert try_sign_in(alice, "alice", "demo-alice").status_code == 303
        assert whoami(alice) == "alice"


def test_other_spellings_of_a_name_count_as_that_name(app: FastAPI) -> None:
    with client_at(app) as client:
        for spelling in ("Alice", "ALICE", "alice", "ａｌｉｃｅ", "aLiCe"):
            assert try_sign_in(client, spelling, "guess-1234").status_code == 401
        assert try_sign_in(client, "alice", "demo-alice").status_code == 429


def test_alice_signs_in_as_Alice_and_is_alice(app: FastAPI) -> None:
    with client_at(app) as client:
        assert try_sign_in(client, "Alice", "demo-alice").status_code == 303
        assert whoami(client) == "alice"


def test_a_saved_cookie_stops_working_after_sign_out(app: FastAPI) -> None:
    with client_at(app) as browser, client_at(app) as thief:
        assert try_sign_in(browser, "alice", "demo-alice").status_code == 303
        saved = browser.cookies[COOKIE_NAME]
        thief.cookies.set(COOKIE_NAME, saved)
        assert whoami(thief) == "alice"  # the copy works while the session is open
        token = browser.get("/api/me").json()["csrf_token"]
        signed_out = browser.post("/signout", data={"csrf_token": token})
        assert signed_out.status_code == 303
        assert whoami(browser) is None
        assert whoami(thief) is None
        page = thief.get("/approvals")
        assert page.status_code == 303 and page.headers["location"].startswith("/signin")


def test_a_password_change_ends_the_session_at_once(app: FastAPI, store: Engine) -> None:
    with client_at(app) as client:
        assert try_sign_in(client, "bob", "demo-bob").status_code == 303
        set_password(store, ADMIN, "bob", "another long phrase")
        assert whoami(client) is None


def test_a_role_change_applies_on_the_next_request(app: FastAPI, store: Engine) -> None:
    with client_at(app) as client:
        assert try_sign_in(client, "dave", "demo-dave").status_code == 303
        assert client.get("/api/me").json()["can_decide"] is False
        change_roles(store, ADMIN, "dave", add=["refund_approver"], remove=[])
        assert client.get("/api/me").json()["can_decide"] is True
        change_roles(store, ADMIN, "dave", add=[], remove=["refund_approver"])
        assert client.get("/api/me").json()["can_decide"] is False


def test_a_disabled_reviewer_is_refused_everywhere(home: Path, store: Engine) -> None:
    app = make_app(home, store)
    _, _, token = issue_token(store, ADMIN, "alice", DAY)
    with client_at(app) as client:
        assert try_sign_in(client, "alice", "demo-alice").status_code == 303
        assert whoami(client) == "alice"
        assert whoami(client, Authorization=f"Bearer {token}") == "alice"
        set_active(store, ADMIN, "alice", False)  # what `signoff user disable alice` does
        assert whoami(client) is None  # the session ended on the next request
        bearer = client.get("/api/me", headers={"Authorization": f"Bearer {token}"})
        assert bearer.status_code == 401 and "was revoked" in bearer.json()["detail"]
        again = try_sign_in(client, "alice", "demo-alice")
        assert again.status_code == 403 and "disabled" in again.text
        assert whoami(client) is None
    with TestClient(make_app(home, store, auth="proxy"), follow_redirects=False) as proxied:
        answer = proxied.get("/api/me", headers={"X-Forwarded-User": "alice"})
        assert answer.status_code == 403 and "disabled" in answer.json()["detail"]
        page = proxied.get("/approvals", headers={"X-Forwarded-User": "alice"})
        assert page.status_code == 403 and "disabled" in page.text
        assert whoami(proxied, **{"X-Forwarded-User": "bob"}) == "bob"


def test_bearer_token_authenticates_the_api_without_a_csrf_token(
    app: FastAPI, store: Engine
) -> None:
    _, _, token = issue_token(store, ADMIN, "bob", DAY)
    bearer = {"Authorization": f"Bearer {token}"}
    with client_at(app) as client:
        me = client.get("/api/me", headers=bearer)
        assert me.status_code == 200
        assert me.json()["id"] == "bob" and me.json()["csrf_token"] is None
        body = {"action_hash": HASH, "verdict": "approve"}
        # No X-CSRF-Token: the request reaches Temporal (down here: 503), not a 403.
        assert client.post(DECISION, json=body, headers=bearer).status_code == 503
        assert client.post(DECISION, data=body, headers=bearer).status_code == 415
        foreign = client.post(DECISION, json=body, headers={**bearer, "Origin": "https://x.test"})
        assert foreign.status_code == 403
        # Pages never take the token: a browser session is the cookie.
        assert client.get("/approvals", headers=bearer).status_code == 303
        revoke_tokens(store, ADMIN, "bob")
        revoked = client.get("/api/me", headers=bearer)
        assert revoked.status_code == 401 and "was revoked" in revoked.json()["detail"]


def test_an_expired_token_is_refused_and_says_so(app: FastAPI, store: Engine) -> None:
    issued_at = clock_now() - DAY - timedelta(minutes=1)  # the clock the app reads
    _, row, token = issue_token(store, ADMIN, "bob", DAY, now=issued_at)
    with client_at(app) as client:
        answer = client.get("/api/me", headers={"Authorization": f"Bearer {token}"})
        assert answer.status_code == 401
        assert f"API token {row.id} expired" in answer.json()["detail"]
        assert "signoff user token bob" in answer.json()["detail"]


@pytest.mark.parametrize(
    ("authorization", "words"),
    [
        ("Bearer so_made-up", "signoff user token"),
        ("Bearer ", "signoff user token"),
        ("so_x", "signoff user token"),
        # bob:not-bobs: a password is taken as Basic (signoff approve), a wrong one is 401.
        ("Basic Ym9iOm5vdC1ib2Jz", "Wrong password for 'bob'"),
    ],
)
def test_a_wrong_authorization_header_is_401_even_with_a_good_cookie(
    app: FastAPI, authorization: str, words: str
) -> None:
    with client_at(app) as client:
        assert try_sign_in(client, "alice", "demo-alice").status_code == 303
        answer = client.get("/api/me", headers={"Authorization": authorization})
        assert answer.status_code == 401
        assert words in answer.json()["detail"]


def test_bearer_token_works_in_proxy_mode(home: Path, store: Engine) -> None:
    _, _, token = issue_token(store, ADMIN, "carol", DAY)
    with TestClient(make_app(home, store, auth="proxy"), follow_redirects=False) as proxied:
        assert whoami(proxied, Authorization=f"Bearer {token}") == "carol"


def test_weak_secrets_are_refused_when_the_app_is_made(home: Path, store: Engine) -> None:
    with pytest.raises(UnsafeSecret, match="needs at least 32"):
        make_app(home, store, ui_secret=SecretStr("x" * 31))
    make_app(home, store, ui_secret=SecretStr("x" * 32))
    secret_file = home / "ui-secret"
    secret_file.write_text("y" * 64)
    secret_file.chmod(0o640)
    with pytest.raises(UnsafeSecret, match="other users"):
        make_app(home, store)
    secret_file.chmod(0o600)
    make_app(home, store)


async def test_a_burst_of_wrong_passwords_is_limited_like_a_sequence(
    home: Path, store: Engine
) -> None:
    """50 wrong passwords for alice sent at once from one address: an attempt counts when
    it starts, so only the free attempts are checked; the rest get 429 at once."""
    app = make_app(home, store)
    limit = Settings(home=home).ui_signin_attempts
    transport = httpx.ASGITransport(app=app, client=("10.0.0.66", 50000))
    async with (
        app.router.lifespan_context(app),
        httpx.AsyncClient(transport=transport, base_url="http://ui") as client,
    ):
        page = (await client.get("/signin")).text
        token = page.split('name="csrf_token" value="')[1].split('"')[0]
        form = {"csrf_token": token, "username": "alice", "password": "guess-1234"}
        answers = await asyncio.gather(*(client.post("/signin", data=form) for _ in range(50)))
    codes = Counter(answer.status_code for answer in answers)
    assert codes == {401: limit, 429: 50 - limit}, codes
