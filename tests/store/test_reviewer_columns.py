"""A store made before issue 9 gets the new reviewer columns in place, on SQLite and
PostgreSQL: its reviewers keep signing in, are active, and `Alice` is refused beside
`alice`, exactly as in a fresh store."""

from __future__ import annotations

import pytest
from sqlalchemy import Engine, create_engine, text

from activities.store import ReviewerExists, add_reviewer, get_reviewer, make_engine
from activities.store.passwords import verify_password
from activities.store.reviewer_columns import NamesClash
from tests.admin import ADMIN

OLD_REVIEWERS = """
CREATE TABLE reviewers (
    id VARCHAR(128) PRIMARY KEY,
    tenant_id VARCHAR(128) REFERENCES tenants (id),
    display_name VARCHAR(200),
    roles TEXT,
    password_hash TEXT
)
"""


def make_old_store(store: Engine) -> str:
    """The seeded store with its reviewers table as it was before issue 9 (and, like
    every store then, no migration record: it is adopted, see schema_migrations.py)."""
    with store.begin() as connection:
        connection.execute(text("DROP TABLE alembic_version"))
        rows = connection.execute(
            text("SELECT id, tenant_id, display_name, roles, password_hash FROM reviewers")
        ).all()
        connection.execute(text("DROP TABLE ui_sessions"))
        connection.execute(text("DROP TABLE passkeys"))  # revision 0006_passkeys', later
        connection.execute(text("DROP TABLE intake_deliveries"))  # revision 0006_intake's
        connection.execute(text("DROP TABLE connector_breakers"))
        connection.execute(text("DROP TABLE payment_links"))  # revision 0006_stripe's
        for table in ("slack_links", "slack_requests", "slack_link_codes", "email_links"):
            connection.execute(text(f"DROP TABLE {table}"))  # revision 0007_slack's
        connection.execute(text("DROP TABLE reviewer_languages"))  # revision 0007_languages'
        connection.execute(text("DROP TABLE prompt_catalogs"))  # revision 0009_prompt_catalogs'
        connection.execute(text("DROP TABLE started_runs"))  # revision 0012_started_runs'
        connection.execute(text("DROP TABLE insight_days"))  # revision 0014_insight_days'
        connection.execute(text("DROP INDEX ix_decisions_tenant_shadow"))
        connection.execute(text("DROP TABLE standing_rule_uses"))  # revision 0008_rules'
        connection.execute(text("DROP TABLE standing_rules"))
        connection.execute(text("DROP TABLE api_tokens"))  # revision 0005_accounts', later
        connection.execute(text("DROP TABLE waiting_actions"))  # revision 0002's, later
        for index in ("ix_decisions_tenant_reviewer_seq", "ix_decisions_tenant_kind_seq"):
            connection.execute(text(f"DROP INDEX {index}"))  # revision 0003's, later
        connection.execute(text("ALTER TABLE decision_nonces DROP COLUMN effect_key"))  # 0004's
        connection.execute(text("DROP TABLE customer_replies"))  # revision 0005's, later
        connection.execute(text("DROP TABLE tool_effects"))
        connection.execute(text("ALTER TABLE decisions DROP COLUMN proof"))  # 0006's
        connection.execute(text("DROP INDEX ix_decisions_tenant_kept_seq"))  # 0011's, later
        connection.execute(text("ALTER TABLE decisions DROP COLUMN action"))
        for index in ("ix_decisions_tenant_insight", "ix_decisions_tenant_run_outcome"):
            connection.execute(text(f"DROP INDEX {index}"))  # revision 0013's, later
        for column in ("outcome", "tool", "category", "waited_ms", "rule_id"):
            connection.execute(text(f"ALTER TABLE decisions DROP COLUMN {column}"))
        connection.execute(text("DROP TABLE reviewers"))
        connection.execute(text(OLD_REVIEWERS))
        for row in rows:
            connection.execute(
                text("INSERT INTO reviewers VALUES (:id, :tenant, :name, :roles, :hash)"),
                dict(zip(("id", "tenant", "name", "roles", "hash"), row, strict=True)),
            )
    url = store.url.render_as_string(hide_password=False)
    store.dispose()
    return url


def test_an_old_store_is_upgraded_in_place(store: Engine) -> None:
    upgraded = make_engine(make_old_store(store))
    try:
        alice = get_reviewer(upgraded, "ALICE")
        assert alice is not None and alice.id == "alice" and alice.active is True
        assert alice.name_key == "alice" and alice.api_token_hash is None
        assert verify_password("demo-alice", alice.password_hash)
        with pytest.raises(ReviewerExists):
            add_reviewer(upgraded, ADMIN, "Alice", "demo", [], "long enough password")
        make_engine(upgraded.url.render_as_string(hide_password=False)).dispose()  # idempotent
    finally:
        upgraded.dispose()


def test_two_spellings_in_an_old_store_are_a_clear_error(store: Engine) -> None:
    url = make_old_store(store)
    raw = create_engine(url)
    with raw.begin() as connection:
        connection.execute(
            text("INSERT INTO reviewers VALUES ('Alice', 'demo', 'Other Alice', '', NULL)")
        )
    with pytest.raises(NamesClash, match="differ only in case"):
        make_engine(url)
    with raw.begin() as connection:  # PostgreSQL's database outlives the test: leave it usable
        connection.execute(text("DELETE FROM reviewers WHERE id = 'Alice'"))
    raw.dispose()
