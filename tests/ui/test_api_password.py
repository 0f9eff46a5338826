"""The decision service's API takes a reviewer's password as HTTP Basic: how `signoff
approve --password-stdin` decides without a key of its own. It is the sign-in page's
check, with its rate limit; it never asks a browser for credentials; proxy mode has no
password sign-in, here either."""

from __future__ import annotations

import asyncio
import base64
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from fastapi.testclient import TestClient

from activities.store import make_engine
from activities.store.reviewer_accounts import set_active, set_password
from approvals_ui.main import create_app
from signoff.config.settings import Settings
from tests.admin import ADMIN
from tests.ui.test_api_offline import client_for, home, unreachable_connect

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


def test_a_decision_meant_as_someone_else_is_refused_before_the_run(ui: TestClient) -> None:
    # `expected_reviewer` never picks the reviewer: the password does, and a decision
    # meant as another is a 403 before Temporal is asked (down here: that would be 503).
    def decide(expected: str) -> int:
        body = {"action_hash": HASH, "verdict": "approve", "expected_reviewer": expected}
        url = "/api/approvals/run-demo-x/decision"
        return ui.post(url, json=body, headers=basic("alice", "demo-alice")).status_code

    assert decide("bob") == 403
    assert decide("ALICE") == 503  # her own name, typed another way


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


async def test_a_burst_of_basic_passwords_is_limited_and_hashed_a_few_at_a_time(
    home: Path, production_password_cost: None
) -> None:
    """50 wrong Basic passwords for alice at once from one address: each attempt counts
    when it starts, so only the free ones are hashed and the rest get 429. Then 12
    wrong passwords from 12 addresses (none limited): all are hashed, never more at
    once than the cap the sign-in form shares. At the product's cost, so that checks
    left uncapped would overlap."""
    engine = make_engine(f"sqlite:///{home / 'signoff.db'}")
    for name in ("alice", "bob"):  # their demo hashes are the test process's cheap ones
        set_password(engine, ADMIN, name, f"demo-{name}")
    engine.dispose()
    settings = Settings(home=home, ui_signin_attempts=3, ui_signin_concurrent_checks=2)
    app = create_app(settings, temporal_connect=unreachable_connect)
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app, client=("10.0.0.66", 50000))
        async with httpx.AsyncClient(transport=transport, base_url="http://ui") as client:
            answers = await asyncio.gather(
                *(client.get("/api/me", headers=basic("alice", "guess-1234")) for _ in range(50))
            )
        assert Counter(answer.status_code for answer in answers) == {401: 3, 429: 47}

        async def one_guess(address: str) -> int:
            transport = httpx.ASGITransport(app=app, client=(address, 50000))
            async with httpx.AsyncClient(transport=transport, base_url="http://ui") as client:
                answer = await client.get("/api/me", headers=basic("bob", "guess-1234"))
                return answer.status_code

        codes = await asyncio.gather(*(one_guess(f"10.0.1.{n}") for n in range(12)))
    assert codes == [401] * 12
    checks = app.state.password_checks
    assert 1 <= checks.peak <= 2
