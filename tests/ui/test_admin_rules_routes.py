"""The standing rules page (`/admin/rules`) and its JSON API, where no Temporal is
needed: only an administrator of the tenant sees, makes and revokes rules; forms need
the session's CSRF token; what an administrator typed comes back escaped."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from activities.store import make_engine
from approvals_ui.main import create_app
from signoff.config.settings import Settings
from signoff.service.handles import Store
from signoff.service.standing_rules import rules_of
from tests.conftest import fresh_demo_store
from tests.rules import add_admin

CSRF_MARK = 'name="csrf_token" value="'
FORM = {
    "tool": "refund",
    "max_amount": "50.00",
    "currency": "EUR",
    "lifetime": "7d",
    "max_uses": "20",
}


async def unreachable_connect(_: Settings) -> Any:
    raise RuntimeError("no Temporal in these tests")


@pytest.fixture
def home(tmp_path: Path, demo_store_template: Path) -> Path:
    engine = fresh_demo_store(demo_store_template, tmp_path / "signoff.db")
    add_admin(engine, "globex", "gadmin")
    engine.dispose()
    return tmp_path


@pytest.fixture
def ui(home: Path) -> Iterator[TestClient]:
    app = create_app(Settings(home=home), temporal_connect=unreachable_connect)
    with TestClient(app, follow_redirects=False) as client:
        yield client


def sign_in(client: TestClient, name: str) -> str:
    """Sign `name` in (the seed's demo password; gadmin's is set here); the CSRF token."""
    token = client.get("/signin").text.split(CSRF_MARK)[1].split('"')[0]
    answer = client.post(
        "/signin", data={"csrf_token": token, "username": name, "password": f"demo-{name}"}
    )
    assert answer.status_code == 303, answer.text
    return client.get("/language").text.split(CSRF_MARK)[1].split('"')[0]


def stored(home: Path, tenant: str = "demo") -> list[str]:
    engine = make_engine(f"sqlite:///{home / 'signoff.db'}")
    try:
        return [
            f"{rule.id} {rule.state}" for rule in rules_of(Store(engine), tenant, everything=True)
        ]
    finally:
        engine.dispose()


def test_an_administrator_makes_and_revokes_a_rule_on_the_page(ui: TestClient, home: Path) -> None:
    token = sign_in(ui, "admin")
    assert 'href="/admin/rules"' in ui.get("/approvals").text  # the link, for admins

    made = ui.post("/admin/rules", data={**FORM, "csrf_token": token})
    assert (made.status_code, made.headers["location"]) == (303, "/admin/rules")
    (rule,) = stored(home)
    rule_id = rule.split()[0]
    page = ui.get("/admin/rules").text
    assert f"Standing rule {rule_id} is made." in page
    assert f'action="/admin/rules/{rule_id}/revoke"' in page

    revoked = ui.post(f"/admin/rules/{rule_id}/revoke", data={"csrf_token": token})
    assert revoked.status_code == 303
    assert stored(home) == [f"{rule_id} revoked"]
    assert f"Standing rule {rule_id} is revoked." in ui.get("/admin/rules").text


def test_a_form_without_the_csrf_token_makes_nothing(ui: TestClient, home: Path) -> None:
    sign_in(ui, "admin")
    answer = ui.post("/admin/rules", data=FORM)
    assert answer.status_code == 403
    assert stored(home) == []


def test_a_reviewer_who_is_no_administrator_sees_and_makes_nothing(
    ui: TestClient, home: Path
) -> None:
    token = sign_in(ui, "alice")
    assert 'href="/admin/rules"' not in ui.get("/approvals").text
    assert ui.get("/admin/rules").status_code == 403
    assert ui.post("/admin/rules", data={**FORM, "csrf_token": token}).status_code == 403
    assert stored(home) == []


def test_an_administrator_of_another_tenant_cannot_revoke_demos_rule(
    ui: TestClient, home: Path
) -> None:
    token = sign_in(ui, "admin")
    ui.post("/admin/rules", data={**FORM, "csrf_token": token})
    (rule,) = stored(home)
    rule_id = rule.split()[0]
    ui.post("/signout", data={"csrf_token": token})

    other = sign_in(ui, "gadmin")
    assert rule_id not in ui.get("/admin/rules").text  # globex lists its own only
    answer = ui.post(f"/admin/rules/{rule_id}/revoke", data={"csrf_token": other})
    assert answer.status_code == 400
    assert "There is no standing rule" in answer.text
    assert stored(home) == [f"{rule_id} active"]


def test_bad_input_is_shown_and_what_was_typed_is_escaped(ui: TestClient, home: Path) -> None:
    token = sign_in(ui, "admin")
    bad = ui.post(
        "/admin/rules", data={**FORM, "lifetime": "<script>x</script>", "csrf_token": token}
    )
    assert bad.status_code == 400
    assert "is not a lifetime" in bad.text
    assert "<script>x</script>" not in bad.text and "&lt;script&gt;" in bad.text

    ui.post("/admin/rules", data={**FORM, "customer": "<b>Marie</b>", "csrf_token": token})
    page = ui.get("/admin/rules").text
    assert "<b>Marie</b>" not in page and "&lt;b&gt;Marie&lt;/b&gt;" in page
    assert len(stored(home)) == 1


def test_the_api_refuses_non_administrators_and_says_why_in_json(ui: TestClient) -> None:
    refused = ui.get("/api/rules", auth=("alice", "demo-alice"))
    assert refused.status_code == 403
    assert "administrator" in refused.json()["detail"]
    made = ui.post(
        "/api/rules",
        json={"tool": "refund", "lifetime": "7d", "max_uses": 3},
        auth=("admin", "demo-admin"),
    )
    assert made.status_code == 422
    assert (
        made.json()["detail"] == "A rule for refunds needs a maximum amount (--max-amount 50.00)."
    )


FRENCH = {"Accept-Language": "fr-FR,fr;q=0.9"}


def test_a_french_maximum_is_read_and_a_refused_form_keeps_what_was_typed(
    ui: TestClient, home: Path
) -> None:
    token = sign_in(ui, "admin")
    assert 'placeholder="50,00"' in ui.get("/admin/rules", headers=FRENCH).text
    typed = {**FORM, "csrf_token": token, "customer": "kim@example.com", "shadow": "on"}
    refused = ui.post("/admin/rules", data={**typed, "max_amount": "cinquante"}, headers=FRENCH)
    assert refused.status_code == 400 and stored(home) == []
    assert "« cinquante » n’est pas un montant : écrivez-le comme 50,00." in refused.text
    assert 'value="cinquante"' in refused.text and 'value="kim@example.com"' in refused.text
    assert re.search(r'name="shadow" value="on" checked', refused.text)

    # The service's own refusals are in French too, the form still as typed.
    lifetime = {**typed, "max_amount": "12,50", "lifetime": "bientôt"}
    no_lifetime = ui.post("/admin/rules", data=lifetime, headers=FRENCH)
    assert no_lifetime.status_code == 400 and stored(home) == []
    assert (
        "« bientôt » n’est pas une durée : écrivez un nombre et une unité, par exemple 30m, "
        "12h ou 7d." in no_lifetime.text
    )
    assert 'value="12,50"' in no_lifetime.text and 'value="bientôt"' in no_lifetime.text

    made = ui.post("/admin/rules", data={**typed, "max_amount": "12,50"}, headers=FRENCH)
    assert made.status_code == 303, made.text
    engine = make_engine(f"sqlite:///{home / 'signoff.db'}")
    try:
        (rule,) = rules_of(Store(engine), "demo")
    finally:
        engine.dispose()
    assert (rule.max_amount, rule.currency, rule.shadow) == ("12.50", "EUR", True)
    assert "12,50 EUR" in ui.get("/admin/rules", headers=FRENCH).text
