"""A trust boundary of the inbox's read model (issue 13): a reviewer of globex never
sees demo's waiting actions, through the JSON API or the inbox page, in either order,
on any page, whatever cursor they hand back (one taken from demo's listing included).

The read model is listed without Temporal, so the app here has none (its connection is
refused): the listing must still answer, from the store alone.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from activities.store import write_transaction
from activities.store.waiting_actions import new_row
from approvals_ui.main import create_app
from signoff.config.settings import Settings
from tests.conftest import fresh_demo_store
from tests.exposures import refund_exposure
from workflows.actions import ActionState, PendingAction

NOW = datetime.now(UTC)
DEMO_WAITING = 6
GLOBEX_WAITING = 3


async def unreachable_connect(_: Settings) -> Any:
    raise RuntimeError("connection refused at 10.0.0.1:7233")


def action(tenant_id: str, index: int) -> PendingAction:
    state = ActionState(
        order_id="X-1", currency="EUR", paid_minor=90_000, review_threshold_minor=20_000
    )
    return PendingAction(
        action_hash=f"{'d' if tenant_id == 'demo' else 'e'}{index:063x}",
        tool_use_id=f"call-{index}",
        tool="refund",
        arguments={"amount": f"{index + 1}0.00", "currency": "EUR"},
        targets={"tenant_id": tenant_id, "order_id": "X-1"},
        reason=f"{tenant_id} reason {index}",
        policy_version="test",
        state=state,
        state_hash="0" * 64,
        mode="confirm",
        required_approvals=1,
        requested_at=NOW,
        # Interleaved expiries: demo's and globex's alternate in the expiry order.
        expires_at=NOW + timedelta(minutes=2 * index + (tenant_id == "globex")),
        exposure=refund_exposure(f"{index + 1}0.00", "X-1"),
    )


@pytest.fixture
def ui(tmp_path: Path, demo_store_template: Path) -> Iterator[TestClient]:
    engine = fresh_demo_store(demo_store_template, tmp_path / "signoff.db")
    with write_transaction(engine) as session:
        for tenant_id, count in (("demo", DEMO_WAITING), ("globex", GLOBEX_WAITING)):
            for index in range(count):
                run_id = f"run-{tenant_id}-w{index}"
                session.add(new_row(tenant_id, run_id, "T-1", action(tenant_id, index), NOW))
    engine.dispose()
    app = create_app(Settings(home=tmp_path), temporal_connect=unreachable_connect)
    with TestClient(app, follow_redirects=False) as client:
        yield client


def sign_in(client: TestClient, name: str) -> None:
    client.cookies.clear()
    token = client.get("/signin").text.split('name="csrf_token" value="')[1].split('"')[0]
    answer = client.post(
        "/signin", data={"csrf_token": token, "username": name, "password": f"demo-{name}"}
    )
    assert answer.status_code == 303


def api_pages(client: TestClient, after: str | None = None) -> list[dict[str, Any]]:
    """Every page of GET /api/approvals from `after` on, one request a page."""
    pages = []
    while True:
        params = {"limit": "1", **({"after": after} if after else {})}
        answer = client.get("/api/approvals", params=params)
        assert answer.status_code == 200, answer.text
        pages.append(answer.json())
        after = answer.json()["next"]
        if after is None:
            return pages


def test_a_globex_reviewer_never_sees_demo_rows(ui: TestClient) -> None:
    sign_in(ui, "alice")
    demo_cursors = [page["next"] for page in api_pages(ui) if page["next"]]
    assert len(demo_cursors) == DEMO_WAITING - 1

    sign_in(ui, "carol")  # globex
    pages = api_pages(ui)
    runs = [item["run_id"] for page in pages for item in page["items"]]
    assert runs == [f"run-globex-w{index}" for index in range(GLOBEX_WAITING)]
    assert {page["total"] for page in pages} == {GLOBEX_WAITING}
    assert {page["waiting_runs"] for page in pages} == {GLOBEX_WAITING}
    # demo's cursors are positions in demo's listing; handed to globex's, they only
    # ever lead to globex's rows.
    for cursor in demo_cursors:
        for page in api_pages(ui, cursor):
            assert all(item["tenant_id"] == "globex" for item in page["items"]), page
    for sort in ("", "amount"):
        inbox = ui.get("/approvals", params={"sort": sort} if sort else {})
        assert inbox.status_code == 200
        assert "run-globex-w0" in inbox.text and "run-demo-" not in inbox.text
        assert "demo reason" not in inbox.text
