"""The approval insight page (`/insight`) and its CSV, where no Temporal is needed: a team
lead and an administrator read their own tenant's figures, a reviewer who only decides
is refused, another tenant's rows never show, a period that cannot be read is a 400
that says why, and the page speaks French."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy.orm import Session

from activities.store.passwords import hash_password
from activities.store.schema import Reviewer
from approvals_ui.main import create_app
from signoff.config.settings import Settings
from tests.conftest import fresh_demo_store
from tests.insight_rows import known_rows
from tests.rules import add_admin
from tests.ui.test_admin_rules_routes import sign_in
from tests.ui.untranslated import untranslated

# What the known rows make of demo's period, as the page writes it (tests/insight_rows.py).
DEMO_MONEY_APPROVED = "255.00 EUR"
GLOBEX_MONEY = "999.99 EUR"


async def unreachable_connect(_: Settings) -> Any:
    raise RuntimeError("no Temporal in these tests")


@pytest.fixture
def home(tmp_path: Path, demo_store_template: Path) -> Path:
    engine = fresh_demo_store(demo_store_template, tmp_path / "signoff.db")
    add_admin(engine, "globex", "gadmin")
    with Session(engine) as session, session.begin():
        session.add(
            Reviewer(
                id="lena",
                tenant_id="demo",
                display_name="Lena",
                roles="lead",
                password_hash=hash_password("demo-lena"),
            )
        )
    known_rows(engine)
    engine.dispose()
    return tmp_path


@pytest.fixture
def ui(home: Path) -> Iterator[TestClient]:
    app = create_app(Settings(home=home), temporal_connect=unreachable_connect)
    with TestClient(app, follow_redirects=False) as client:
        yield client


def figure(html: str, table: str, name: str, figure_name: str) -> str:
    """The text of one cell: the row named `name` of the table with id `table`."""
    part = html.split(f'id="{table}"')[1].split("</table>")[0]
    row = part.split(f'data-name="{name}"')[1].split("</tr>")[0]
    return row.split(f'data-figure="{figure_name}">')[1].split("<")[0].strip()


def test_a_lead_reads_the_tenants_figures(ui: TestClient) -> None:
    sign_in(ui, "lena")
    assert 'href="/insight"' in ui.get("/approvals").text  # the link, for leads
    page = ui.get("/insight")
    assert page.status_code == 200, page.text
    html = page.text
    assert figure(html, "insight-tools", "refund", "requests") == "24"
    assert figure(html, "insight-tools", "refund", "p50") == "9 min"
    assert figure(html, "insight-tools", "refund", "p95") == "19 min"
    assert figure(html, "insight-tools", "refund", "by_rule") == "1 (4%)"
    assert figure(html, "insight-reviewers", "alice", "money_approved") == "200.00 EUR"
    assert figure(html, "insight-reviewers", "bob", "p50") == "30 sec"
    assert DEMO_MONEY_APPROVED in html and "10.00 EUR" in html  # approved, refunded
    # The shadow rule: 4 it would have approved, 2 decided, 1 alike, 50%; frank's rejection.
    shadows = html.split('id="insight-shadows"')[1]
    assert 'data-figure="agreement">50%' in shadows
    assert 'href="/runs/run-s2"' in html and "frank" in html
    assert GLOBEX_MONEY not in html  # another tenant's approval


def test_an_administrator_reads_them_too_and_another_tenants_admin_only_its_own(
    ui: TestClient,
) -> None:
    token = sign_in(ui, "admin")
    assert DEMO_MONEY_APPROVED in ui.get("/insight").text
    ui.post("/signout", data={"csrf_token": token})
    sign_in(ui, "gadmin")
    html = ui.get("/insight").text
    assert GLOBEX_MONEY in html and figure(html, "insight-reviewers", "carol", "approved") == "1"
    assert DEMO_MONEY_APPROVED not in html and 'data-name="alice"' not in html
    assert "run-s2" not in ui.get("/insight.csv").text


def test_a_reviewer_who_only_decides_is_refused(ui: TestClient) -> None:
    sign_in(ui, "alice")
    assert 'href="/insight"' not in ui.get("/approvals").text
    refused = ui.get("/insight")
    assert refused.status_code == 403
    assert "team leads and administrators" in refused.text
    assert ui.get("/insight.csv").status_code == 403


def test_signed_out_nobody_reads_it(ui: TestClient) -> None:
    assert ui.get("/insight").status_code in (303, 401)
    assert ui.get("/insight.csv").status_code in (303, 401)


def test_the_csv_holds_the_same_figures(ui: TestClient) -> None:
    sign_in(ui, "lena")
    answer = ui.get("/insight.csv")
    assert answer.status_code == 200
    assert answer.headers["content-type"].startswith("text/csv")
    assert "attachment" in answer.headers["content-disposition"]
    rows = list(csv.reader(io.StringIO(answer.text)))
    assert rows[0][:5] == ["scope", "name", "figure", "detail", "value"]
    found = {tuple(row[:4]): row[4] for row in rows[1:]}
    assert found["tool", "refund", "requests", ""] == "24"
    assert found["tool", "refund", "rejected", "wrong_amount"] == "1"
    assert found["tool", "refund", "p95_seconds", ""] == str(19 * 60)
    assert found["tenant", "demo", "money_approved", "EUR"] == "255.00"
    assert found["tenant", "demo", "money_refunded", "EUR"] == "10.00"
    assert found["reviewer", "alice", "p50_seconds", ""] == str(10 * 60)
    assert found["shadow_rule", "R-1", "agreement", ""] == "0.5"
    [disagreement] = [row for row in rows if row[0] == "disagreement"]
    assert (disagreement[2], disagreement[3], disagreement[5], disagreement[7]) == (
        "rejected",
        "not_eligible",
        "run-s2",
        "frank",
    )


@pytest.mark.parametrize(
    ("query", "why"),
    [
        ("from=2026-02-01&to=2026-01-01", "date is after the"),
        ("from=yesterday", "must look like 2026-01-31"),
        ("from=2024-01-01&to=2026-01-01", "at most 366 days"),
    ],
)
def test_a_period_that_cannot_be_read_says_why(ui: TestClient, query: str, why: str) -> None:
    sign_in(ui, "lena")
    answer = ui.get(f"/insight?{query}")
    assert answer.status_code == 400
    assert why in answer.text


def test_a_period_without_the_rows_shows_none(ui: TestClient) -> None:
    sign_in(ui, "lena")
    html = ui.get("/insight?from=2020-01-01&to=2020-01-31").text
    assert "No request ended in this period." in html and 'id="insight-tools"' not in html


def test_the_page_speaks_french(ui: TestClient) -> None:
    sign_in(ui, "lena")
    html = ui.get("/insight", headers={"accept-language": "fr"}).text
    assert untranslated(html, "fr") == []
    english = ui.get("/insight", headers={"accept-language": "en"}).text
    assert untranslated(english, "fr") != []  # the check finds our English: it can fail
    assert "Aperçu des approbations" in html
    assert "255,00\u00a0EUR" in html or "255,00 EUR" in html
    assert figure(html, "insight-reviewers", "alice", "p50") == "10\u00a0min"
