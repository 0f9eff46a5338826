"""Reviewer accounts on SQLite and PostgreSQL: one name whatever its case, disabling,
roles, API tokens and server-side sessions that end at once."""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlalchemy import Engine, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from activities.store import (
    ReviewerExists,
    UnknownReviewer,
    UnknownToken,
    add_reviewer,
    change_roles,
    check_token,
    end_session,
    get_reviewer,
    issue_token,
    revoke_token,
    revoke_tokens,
    seed_demo,
    session_reviewer,
    set_active,
    set_password,
    start_session,
    token_reviewer,
    tokens_of,
)
from activities.store.database import write_transaction
from activities.store.schema import Reviewer
from tests.admin import ADMIN
from tests.clock import clock_now
from workflows.actions import REFUND_APPROVER_ROLE

T0 = clock_now()
TWELVE_HOURS = timedelta(hours=12)
NINETY_DAYS = timedelta(days=90)


def test_alice_and_Alice_are_one_reviewer(store: Engine) -> None:
    for spelling in ("Alice", "ALICE", "ａｌｉｃｅ"):  # the last is fullwidth (NFKC)
        with pytest.raises(ReviewerExists, match="exists already as 'alice'"):
            add_reviewer(store, ADMIN, spelling, "demo", [], "long enough password")
        found = get_reviewer(store, spelling)
        assert found is not None and found.id == "alice"
    with Session(store) as session:
        assert len(session.scalars(select(Reviewer).where(Reviewer.id.ilike("alice"))).all()) == 1


def test_the_database_itself_refuses_a_second_spelling(store: Engine) -> None:
    with pytest.raises(IntegrityError), write_transaction(store) as session:
        session.add(Reviewer(id="BOB", tenant_id="demo", display_name="B", roles=""))


def test_seeding_again_keeps_a_disabled_reviewer_disabled(store: Engine) -> None:
    set_active(store, ADMIN, "alice", False)
    seed_demo(store)
    alice = get_reviewer(store, "alice")
    assert alice is not None and alice.active is False


def test_roles_are_added_and_removed_by_any_spelling(store: Engine) -> None:
    changed = change_roles(store, ADMIN, "DAVE", add=[REFUND_APPROVER_ROLE, "auditor"], remove=[])
    assert changed.role_list == [REFUND_APPROVER_ROLE, "auditor"]
    changed = change_roles(store, ADMIN, "dave", add=[], remove=[REFUND_APPROVER_ROLE])
    assert changed.role_list == ["auditor"]
    again = get_reviewer(store, "dave")
    assert again is not None and again.role_list == ["auditor"]
    with pytest.raises(UnknownReviewer):
        change_roles(store, ADMIN, "mallory", add=["auditor"], remove=[])


def open_session(store: Engine, name: str) -> str:
    reviewer = get_reviewer(store, name)
    assert reviewer is not None
    session_id = start_session(store, reviewer.id, reviewer.password_hash, TWELVE_HOURS, now=T0)
    assert session_id is not None
    return session_id


def test_a_session_is_not_opened_on_a_password_that_changed_or_when_disabled(
    store: Engine,
) -> None:
    alice = get_reviewer(store, "alice")
    assert alice is not None
    set_password(store, ADMIN, "alice", "changed during the sign-in")
    assert start_session(store, "alice", alice.password_hash, TWELVE_HOURS, now=T0) is None
    fresh = get_reviewer(store, "alice")
    assert fresh is not None
    set_active(store, ADMIN, "alice", False)
    assert start_session(store, "alice", fresh.password_hash, TWELVE_HOURS, now=T0) is None


def test_a_session_lives_a_fixed_time_however_often_it_is_used(store: Engine) -> None:
    session_id = open_session(store, "alice")
    for hours in (1, 6, 11):  # use does not extend it
        reviewer = session_reviewer(store, session_id, now=T0 + timedelta(hours=hours))
        assert reviewer is not None and reviewer.id == "alice"
    assert session_reviewer(store, session_id, now=T0 + TWELVE_HOURS) is None
    assert session_reviewer(store, "a-made-up-id", now=T0) is None


def test_sign_out_ends_only_that_session(store: Engine) -> None:
    laptop = open_session(store, "alice")
    phone = open_session(store, "alice")
    end_session(store, laptop)
    assert session_reviewer(store, laptop, now=T0) is None
    assert session_reviewer(store, phone, now=T0) is not None


def test_a_password_change_ends_every_session(store: Engine) -> None:
    session_id = open_session(store, "alice")
    set_password(store, ADMIN, "Alice", "a brand new phrase")
    assert session_reviewer(store, session_id, now=T0) is None


def test_disabling_ends_sessions_and_enabling_does_not_revive_them(store: Engine) -> None:
    session_id = open_session(store, "bob")
    set_active(store, ADMIN, "bob", False)
    assert session_reviewer(store, session_id, now=T0) is None
    set_active(store, ADMIN, "bob", True)
    assert session_reviewer(store, session_id, now=T0) is None
    with pytest.raises(UnknownReviewer):
        set_active(store, ADMIN, "mallory", False)


def test_api_tokens_are_stored_hashed_and_revoked_one_by_one(store: Engine) -> None:
    _, first_row, first = issue_token(store, ADMIN, "carol", NINETY_DAYS, now=T0)
    assert first.startswith("so_") and len(first) > 40
    assert first not in first_row.token_hash
    found = token_reviewer(store, first, now=T0)
    assert found is not None and found.id == "carol"
    _, second_row, second = issue_token(store, ADMIN, "carol", NINETY_DAYS, now=T0)
    assert token_reviewer(store, first, now=T0) is not None  # several per reviewer
    revoke_token(store, ADMIN, first_row.id, now=T0)
    assert token_reviewer(store, first, now=T0) is None
    assert token_reviewer(store, second, now=T0) is not None
    assert [row.id for row in tokens_of(store, "carol")] == [first_row.id, second_row.id]
    assert revoke_tokens(store, ADMIN, "carol", now=T0) == 1
    assert token_reviewer(store, second, now=T0) is None
    with pytest.raises(UnknownToken):
        revoke_token(store, ADMIN, second_row.id + 100, now=T0)


def test_a_token_counts_until_it_expires(store: Engine) -> None:
    _, row, token = issue_token(store, ADMIN, "bob", NINETY_DAYS, now=T0)
    assert row.expires_at == T0 + NINETY_DAYS
    assert token_reviewer(store, token, now=row.expires_at - timedelta(seconds=1)) is not None
    expired = check_token(store, token, now=row.expires_at)
    assert expired.reviewer is None and expired.problem is not None
    assert f"API token {row.id} expired" in expired.problem


def test_a_disabled_reviewers_tokens_are_revoked(store: Engine) -> None:
    _, _, token = issue_token(store, ADMIN, "bob", NINETY_DAYS, now=T0)
    set_active(store, ADMIN, "bob", False)
    assert token_reviewer(store, token, now=T0) is None
    set_active(store, ADMIN, "bob", True)
    revoked = check_token(store, token, T0)
    assert revoked.reviewer is None and revoked.problem is not None
    assert "was revoked" in revoked.problem  # enabling again revives no token
    assert token_reviewer(store, "so_" + "x" * 43, now=T0) is None
    assert token_reviewer(store, "", now=T0) is None


def test_a_new_password_revokes_the_reviewers_tokens(store: Engine) -> None:
    _, _, token = issue_token(store, ADMIN, "alice", NINETY_DAYS, now=T0)
    set_password(store, ADMIN, "alice", "a brand new phrase")
    assert token_reviewer(store, token, now=T0) is None
