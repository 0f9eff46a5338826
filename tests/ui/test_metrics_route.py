"""The reviewer UI's `/metrics`: only for the scrape token; refused sign-ins counted by
reason; pending refunds read from the store in the background, never by a scrape; and
nothing in it that names a reviewer, a password or an address.

On a seeded store with no Temporal, like `test_auth_routes.py`.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from prometheus_client.parser import text_string_to_metric_families
from sqlalchemy import Engine, event

from activities.store.pending_refunds import hold_pending_refund
from approvals_ui.main import create_app
from signoff.config.settings import Settings
from signoff.service.handles import Store
from tests.conftest import fresh_demo_store
from workflows.actions import PendingRefundHold

WRONG_PASSWORD = "guess-password-9182"
METRICS_TOKEN = "scrape-token-6b1f93d2a7"
SCRAPER = {"Authorization": f"Bearer {METRICS_TOKEN}"}
# Longer than any test: the only refreshes are the one at start and the test's own.
NO_BACKGROUND_REFRESH = 86400.0


async def unreachable_connect(_: Settings) -> Any:
    raise RuntimeError("connection refused")


@pytest.fixture
def store(tmp_path: Path, demo_store_template: Path) -> Iterator[Engine]:
    engine = fresh_demo_store(demo_store_template, tmp_path / "signoff.db")
    yield engine
    engine.dispose()


@pytest.fixture
def client(tmp_path: Path, store: Engine) -> Iterator[TestClient]:
    settings = Settings(
        home=tmp_path,
        metrics_token=METRICS_TOKEN,
        metrics_refresh_seconds=NO_BACKGROUND_REFRESH,
    )
    app = create_app(settings, temporal_connect=unreachable_connect, engine=Store(store))
    with TestClient(app, follow_redirects=False, client=("10.0.0.7", 50000)) as client:
        yield client


def scrape(client: TestClient) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    answer = client.get("/metrics", headers=SCRAPER)  # no sign-in: the scrape token
    assert answer.status_code == 200
    assert answer.headers["content-type"].startswith("text/plain")
    return {
        (sample.name, tuple(sorted(sample.labels.items()))): sample.value
        for family in text_string_to_metric_families(answer.text)
        for sample in family.samples
    }


def failures(scraped: dict[Any, float], reason: str) -> float:
    return scraped.get(("signoff_signin_failures_total", (("reason", reason),)), 0.0)


def sign_in(client: TestClient, name: str, password: str) -> int:
    page = client.get("/signin").text
    token = page.split('name="csrf_token" value="')[1].split('"')[0]
    data = {"csrf_token": token, "username": name, "password": password}
    return client.post("/signin", data=data).status_code


def test_refused_sign_ins_are_counted_by_reason(client: TestClient, store: Engine) -> None:
    before = scrape(client)
    assert sign_in(client, "alice", WRONG_PASSWORD) == 401
    assert sign_in(client, "nobody", WRONG_PASSWORD) == 401
    assert client.get("/api/me", headers={"Authorization": "Bearer so_wrong"}).status_code == 401
    assert sign_in(client, "alice", "demo-alice") == 303  # a success counts for nothing
    after = scrape(client)

    assert failures(after, "wrong_credentials") - failures(before, "wrong_credentials") == 2
    assert failures(after, "bad_token") - failures(before, "bad_token") == 1
    text = client.get("/metrics", headers=SCRAPER).text
    assert "alice" not in text and WRONG_PASSWORD not in text and "10.0.0.7" not in text


def test_pending_refunds_are_read_from_the_store(client: TestClient, store: Engine) -> None:
    assert scrape(client)[("signoff_pending_actions", ())] == 0
    now = datetime.now(UTC)
    hold = PendingRefundHold(
        run_id="run-demo-metrics",
        tenant_id="demo",
        order_id="C-1042",
        action_hash="cd" * 32,
        amount_minor=1000,
        expires_at=now + timedelta(hours=24),
    )
    hold_pending_refund(store, hold, now=now - timedelta(hours=3))
    # A scrape shows the last refresh; the background one would come at its interval.
    assert scrape(client)[("signoff_pending_actions", ())] == 0
    client.app.state.store_gauges.refresh()  # type: ignore[attr-defined]

    scraped = scrape(client)
    assert scraped[("signoff_pending_actions", ())] == 1
    assert scraped[("signoff_oldest_pending_age_seconds", ())] >= 3 * 3600


def test_a_scrape_runs_no_query(client: TestClient, store: Engine) -> None:
    statements: list[str] = []

    def count(_conn: Any, _cursor: Any, statement: str, *_: Any) -> None:
        statements.append(statement)

    event.listen(store, "before_cursor_execute", count)
    try:
        for _ in range(3):
            assert ("signoff_pending_actions", ()) in scrape(client)
        assert statements == []
        client.app.state.store_gauges.refresh()  # type: ignore[attr-defined]
        assert statements  # the listener sees the store's queries: the refresh makes them
    finally:
        event.remove(store, "before_cursor_execute", count)


def test_a_scrape_without_the_token_is_refused(client: TestClient, tmp_path: Path) -> None:
    for headers in (
        {},
        {"Authorization": "Bearer wrong-token"},
        {"Authorization": METRICS_TOKEN},  # not a bearer scheme
        {"Authorization": f"Basic {METRICS_TOKEN}"},
    ):
        answer = client.get("/metrics", headers=headers)
        assert answer.status_code == 401, headers
        assert "signoff_" not in answer.text and "SIGNOFF_METRICS_TOKEN" in answer.text


def test_no_token_configured_no_metrics(tmp_path: Path, store: Engine) -> None:
    app = create_app(
        Settings(home=tmp_path), temporal_connect=unreachable_connect, engine=Store(store)
    )
    with TestClient(app) as client:
        refused = client.get("/metrics", headers={"Authorization": "Bearer anything"})
    assert refused.status_code == 403 and "SIGNOFF_METRICS_TOKEN" in refused.text
