"""The audit page, its CSV and `GET /api/audit` read the store's audit table: they
answer with Temporal unreachable, page with a cursor, count every match, and show one
tenant only."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import Engine

from activities.store import change_roles
from activities.store.decisions import append_decision
from tests.admin import ADMIN
from tests.conftest import fresh_demo_store
from tests.ui.test_api_offline import client_for
from workflows.actions import DecisionEvent, DecisionRecord

BOB = {"X-Forwarded-User": "bob"}
AT = datetime(2026, 11, 30, 9, 0, tzinfo=UTC)
FORMULA = '=HYPERLINK("http://evil.test","photos")'


def trail_event(engine: Engine, tenant: str, sequence: int, reviewer: str, reason: str) -> None:
    append_decision(
        engine,
        DecisionEvent(
            run_id=f"run-{tenant}-audit",
            tenant_id=tenant,
            ticket_id="T-1042",
            sequence=sequence,
            record=DecisionRecord(
                action_hash=f"{sequence:x}" * 64,
                kind="rejected",
                reviewer_id=reviewer,
                at=AT + timedelta(minutes=sequence),
                reason=reason,
                order_id="C-1042",
                amount="60.00",
                currency="EUR",
            ),
        ),
    )


@pytest.fixture
def proxied(tmp_path: Path, demo_store_template: Path) -> Iterator[TestClient]:
    engine = fresh_demo_store(demo_store_template, tmp_path / "signoff.db")
    for sequence in range(1, 4):
        trail_event(engine, "demo", sequence, "bob", FORMULA if sequence == 1 else "no photo")
    trail_event(engine, "globex", 1, "carol", "not ours to see")
    engine.dispose()
    # Temporal is unreachable: the audit must not need it.
    with client_for(tmp_path, auth="proxy") as client:
        yield client


def test_api_audit_pages_newest_first_with_the_total(proxied: TestClient) -> None:
    first = proxied.get("/api/audit?limit=2", headers=BOB)
    assert first.status_code == 200, first.text
    body = first.json()
    assert body["total"] == 3
    assert [item["seq"] for item in body["items"]] == [3, 2]
    assert body["items"][0]["amount"] == "60.00" and body["items"][0]["kind"] == "rejected"
    rest = proxied.get(body["next"], headers=BOB).json()
    assert [item["seq"] for item in rest["items"]] == [1] and rest["next"] is None
    assert rest["total"] == 3
    runs = {item["run_id"] for item in body["items"] + rest["items"]}
    assert runs == {"run-demo-audit"}  # globex's event is not shown
    bad = proxied.get("/api/audit?from=yesterday", headers=BOB)
    assert bad.status_code == 400 and "2026-01-31" in bad.json()["detail"]


def test_page_and_csv_read_the_table_with_temporal_down(proxied: TestClient) -> None:
    page = proxied.get("/audit?reviewer=bob", headers=BOB)
    assert page.status_code == 200 and "3 decisions." in page.text
    assert 'data-run-id="run-demo-audit" data-kind="rejected"' in page.text
    assert "not ours to see" not in page.text
    exported = proxied.get("/audit.csv?verdict=rejected", headers=BOB)
    records = list(csv.DictReader(io.StringIO(exported.text)))
    assert len(records) == 3
    [oldest] = [row for row in records if row["reason"] != "no photo"]
    assert oldest["reason"] == "'" + FORMULA  # quoted: a spreadsheet shows text
    assert (oldest["amount"], oldest["currency"], oldest["order"]) == ("60.00", "EUR", "C-1042")


def test_the_page_links_to_older_decisions_by_cursor(
    proxied: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("approvals_ui.routers.audit.PAGE_SIZE", 2)
    first = proxied.get("/audit?reviewer=bob", headers=BOB).text
    assert "3 decisions." in first and first.count("<tr data-run-id=") == 2
    assert 'href="/audit?reviewer=bob&amp;before=2" rel="next"' in first
    older = proxied.get("/audit?reviewer=bob&before=2", headers=BOB).text
    assert "3 decisions." in older and older.count("<tr data-run-id=") == 1
    assert 'rel="next"' not in older and ">Newest</a>" in older


def test_an_account_change_shows_in_the_audit_without_a_run(
    tmp_path: Path, demo_store_template: Path
) -> None:
    engine = fresh_demo_store(demo_store_template, tmp_path / "signoff.db")
    change_roles(engine, ADMIN, "dave", add=["auditor"], remove=[])
    engine.dispose()
    with client_for(tmp_path, auth="proxy") as client:
        page = client.get("/audit", headers=BOB).text
    assert 'data-run-id="" data-kind="account"' in page
    assert "user roles dave: none -&gt; auditor" in page
    assert "account change" in page and 'href="/runs/"' not in page
