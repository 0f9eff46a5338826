"""Accounts are administered (issue 24, section 3), on SQLite and PostgreSQL: every
change needs an administrator's credential, proven where the change is made; a refused
attempt changes nothing and is on the record; each change is an audit row (who, what,
when) in a chain that still verifies; the bootstrap makes the first administrator once.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import timedelta
from pathlib import Path

import pytest
from sqlalchemy import Engine, func, select
from sqlalchemy.orm import Session

from activities.store import (
    Credential,
    FirstAccountNotAdministrator,
    LastAdministrator,
    NotAdministrator,
    Tenant,
    add_reviewer,
    change_roles,
    get_reviewer,
    issue_token,
    make_engine,
    revoke_token,
    set_active,
    set_password,
    token_reviewer,
    write_transaction,
)
from activities.store.account_schema import ApiToken
from activities.store.decision_chain import verify_chain
from activities.store.decisions import ACCOUNT_CHANGE, ACCOUNT_REFUSED
from activities.store.schema import Base, DecisionRow, Reviewer
from tests.admin import ADMIN, ADMIN_NAME
from tests.clock import clock_now
from tests.store.conftest import BACKENDS

DAY = timedelta(days=1)
T0 = clock_now()


def audit(store: Engine) -> list[DecisionRow]:
    with Session(store) as session:
        return list(session.scalars(select(DecisionRow).order_by(DecisionRow.id)))


def token_rows(store: Engine) -> int:
    with Session(store) as session:
        return int(session.scalar(select(func.count()).select_from(ApiToken)) or 0)


NOT_ADMIN = [
    pytest.param(None, "No credential was given", id="no-credential"),
    pytest.param(
        Credential(ADMIN_NAME, "not the password"), "Wrong password for 'admin'", id="wrong"
    ),
    pytest.param(Credential("alice", "demo-alice"), "'alice' is not an administrator", id="alice"),
    pytest.param(Credential("admin", "so_" + "x" * 43, "token"), "not one signoff", id="token"),
]


@pytest.mark.parametrize(("credential", "why"), NOT_ADMIN)
def test_a_token_minted_without_an_admin_is_refused_and_on_the_record(
    store: Engine, credential: Credential | None, why: str
) -> None:
    before = audit(store)
    with pytest.raises(NotAdministrator, match=why):
        issue_token(store, credential, "bob", DAY, now=T0)
    assert token_rows(store) == 0  # nothing written
    [refused] = audit(store)[len(before) :]
    assert refused.kind == ACCOUNT_REFUSED and refused.tenant_id == "demo"  # bob's tenant
    assert refused.reviewer_id == (credential.name if credential else None)
    assert refused.reason.startswith("refused `user token bob`:") and why in refused.reason
    assert refused.decided_at == T0
    assert verify_chain(store).intact


def test_every_account_change_is_an_audit_row_naming_who_and_what(store: Engine) -> None:
    add_reviewer(store, ADMIN, "erin", "demo", ["refund_approver"], "long enough pw", now=T0)
    set_password(store, ADMIN, "erin", "another long pw", now=T0)
    change_roles(store, ADMIN, "erin", add=["auditor"], remove=["refund_approver"], now=T0)
    _, row, _ = issue_token(store, ADMIN, "erin", DAY, now=T0)
    revoke_token(store, ADMIN, row.id, now=T0)
    set_active(store, ADMIN, "erin", False, now=T0)
    set_active(store, ADMIN, "erin", True, now=T0)
    rows = audit(store)
    assert [(r.kind, r.reviewer_id, r.tenant_id) for r in rows] == [
        (ACCOUNT_CHANGE, ADMIN_NAME, "demo")
    ] * 7
    assert [r.reason.split(":")[0] for r in rows] == [
        "user add erin",
        "user passwd erin",
        "user roles erin",
        "user token erin",
        f"user token revoke {row.id}",
        "user disable erin",
        "user enable erin",
    ]
    assert "auditor" in rows[2].reason and f"token {row.id} issued" in rows[3].reason
    assert all(r.decided_at == T0 and r.run_id == "" for r in rows)
    report = verify_chain(store)
    assert report.intact and report.rows["demo"] == 7


def test_a_refused_change_changes_nothing(store: Engine) -> None:
    alice = Credential("alice", "demo-alice")
    attempts: list[Callable[[], object]] = [
        lambda: set_password(store, alice, "bob", "taken over by alice"),
        lambda: change_roles(store, alice, "alice", add=["admin"], remove=[]),
        lambda: set_active(store, alice, "bob", False),
        lambda: add_reviewer(store, alice, "mallory", "demo", ["admin"], "long enough pw"),
    ]
    for attempt in attempts:
        with pytest.raises(NotAdministrator):
            attempt()
    bob, alice_row = get_reviewer(store, "bob"), get_reviewer(store, "alice")
    assert bob is not None and bob.active and alice_row is not None
    assert "admin" not in alice_row.role_list and get_reviewer(store, "mallory") is None
    assert [r.kind for r in audit(store)] == [ACCOUNT_REFUSED] * 4


def test_a_disabled_administrator_proves_nothing(store: Engine) -> None:
    add_reviewer(store, ADMIN, "root2", "demo", ["admin"], "second admin pw")
    second = Credential("root2", "second admin pw")
    set_active(store, ADMIN, "root2", False)
    with pytest.raises(NotAdministrator, match="'root2' is disabled"):
        issue_token(store, second, "bob", DAY)
    assert token_rows(store) == 0


def test_an_administrators_token_is_a_credential_until_it_is_revoked(store: Engine) -> None:
    _, row, secret = issue_token(store, ADMIN, ADMIN_NAME, DAY, now=T0)
    by_token = Credential(ADMIN_NAME, secret, "token")
    _, _, bobs = issue_token(store, by_token, "bob", DAY, now=T0)
    assert token_reviewer(store, bobs, now=T0) is not None
    with pytest.raises(NotAdministrator, match="not 'alice''s"):  # the token proves admin only
        issue_token(store, Credential("alice", secret, "token"), "bob", DAY, now=T0)
    revoke_token(store, ADMIN, row.id, now=T0)
    with pytest.raises(NotAdministrator, match="was revoked"):
        issue_token(store, by_token, "bob", DAY, now=T0)


@pytest.mark.parametrize(
    "change",
    [
        pytest.param(lambda store: set_active(store, ADMIN, ADMIN_NAME, False), id="disable"),
        pytest.param(
            lambda store: change_roles(store, ADMIN, ADMIN_NAME, add=[], remove=["admin"]),
            id="role",
        ),
    ],
)
def test_the_last_administrator_stays(store: Engine, change: Callable[[Engine], object]) -> None:
    with pytest.raises(LastAdministrator):
        change(store)
    admin = get_reviewer(store, ADMIN_NAME)
    assert admin is not None and admin.active and "admin" in admin.role_list
    assert audit(store) == []


@pytest.fixture(params=BACKENDS)
def unseeded(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Engine]:
    """A store with a tenant and no account at all."""
    if request.param == "sqlite":
        engine = make_engine(f"sqlite:///{tmp_path / 'signoff.db'}")
    else:
        engine = make_engine(request.getfixturevalue("postgres_url"))
        Base.metadata.drop_all(engine)
        Base.metadata.create_all(engine)
    with write_transaction(engine) as session:
        session.add(Tenant(id="acme", name="Acme"))
    yield engine
    engine.dispose()


def test_the_bootstrap_makes_the_first_administrator_once(unseeded: Engine) -> None:
    with pytest.raises(FirstAccountNotAdministrator):
        add_reviewer(unseeded, None, "erin", "acme", ["refund_approver"], "long enough pw")
    assert audit(unseeded) == []
    root = add_reviewer(unseeded, None, "root", "acme", ["admin"], "long enough pw", now=T0)
    assert root.role_list == ["admin"]
    [row] = audit(unseeded)
    assert row.kind == ACCOUNT_CHANGE and row.reviewer_id == "root"
    assert row.reason.startswith("bootstrap, without a credential")
    # Closed now: the same call is an attempt without a credential, refused and recorded.
    with pytest.raises(NotAdministrator, match="No credential was given"):
        add_reviewer(unseeded, None, "mallory", "acme", ["admin"], "long enough pw")
    assert get_reviewer(unseeded, "mallory") is None
    assert [r.kind for r in audit(unseeded)] == [ACCOUNT_CHANGE, ACCOUNT_REFUSED]
    with Session(unseeded) as session:
        assert session.scalar(select(func.count()).select_from(Reviewer)) == 1
    # The first administrator administers.
    add_reviewer(unseeded, Credential("root", "long enough pw"), "erin", "acme", [], "another pw1")
    assert get_reviewer(unseeded, "erin") is not None
