"""Revision 0005_accounts on a store that held tokens the old way (one per reviewer, in
`reviewers.api_token_hash`, never expiring): each becomes a row of `api_tokens` that
still proves its reviewer and now expires, and the old column is emptied."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from alembic import command
from sqlalchemy import create_engine, text

from activities.store import make_engine, token_reviewer, tokens_of
from activities.store.api_tokens import token_hash
from activities.store.schema_migrations import MIGRATIONS, _config

OLD_TOKEN = "so_" + "t" * 43


def test_a_token_held_before_0005_moves_to_its_table_and_expires(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'signoff.db'}"
    old = create_engine(url)
    with old.begin() as connection:
        command.upgrade(_config(MIGRATIONS, connection), "0004")
        connection.execute(
            text(
                "INSERT INTO tenants (id, name, refund_review_threshold_minor) "
                "VALUES ('demo', 'Demo', 20000)"
            )
        )
        connection.execute(
            text(
                "INSERT INTO reviewers (id, tenant_id, display_name, roles, name_key, "
                "api_token_hash) VALUES ('bob', 'demo', 'Bob', '', 'bob', :hash)"
            ),
            {"hash": token_hash(OLD_TOKEN)},
        )
    old.dispose()
    before = datetime.now(UTC)

    store = make_engine(url)  # migrates to the head
    try:
        found = token_reviewer(store, OLD_TOKEN)
        assert found is not None and found.id == "bob" and found.api_token_hash is None
        [row] = tokens_of(store, "bob")
        assert row.revoked_at is None
        assert (
            before + timedelta(days=90) <= row.expires_at <= datetime.now(UTC) + timedelta(days=90)
        )
        assert token_reviewer(store, OLD_TOKEN, now=row.expires_at) is None
    finally:
        store.dispose()
