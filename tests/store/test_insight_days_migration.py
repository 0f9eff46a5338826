"""Revision 0014_insight_days, on SQLite and PostgreSQL: down to 0013 it takes away the
days' table and the shadow rows' index and leaves the audit whole; up again, the days
come back from the audit at the first view, and the figures are what they were."""

from __future__ import annotations

from datetime import timedelta

from alembic import command
from alembic.config import Config
from sqlalchemy import Engine, func, inspect, select

from activities.store import make_engine, seed_demo
from activities.store.approval_insight import approval_insight
from activities.store.database import use_session, writer
from activities.store.insight_days import DAYS
from activities.store.insight_period import whole_days
from activities.store.schema_migrations import MIGRATIONS, current_revision, migrate
from tests.insight_rows import NOW, SINCE, UNTIL, add, known_rows
from tests.store.test_migrations import empty_url, raw  # noqa: F401  (the fixtures)

BEFORE = "0013_decision_insight"
SHADOW_INDEX = "ix_decisions_tenant_shadow"


def to_revision(engine: Engine, revision: str) -> None:
    with writer(engine).begin() as connection:
        config = Config()
        config.set_main_option("script_location", MIGRATIONS)
        config.attributes["connection"] = connection
        command.downgrade(config, revision)


def indexes(engine: Engine) -> set[str | None]:
    return {index["name"] for index in inspect(engine).get_indexes("decisions")}


def test_the_revision_goes_down_and_up_and_the_figures_stay(empty_url: str, raw: Engine) -> None:  # noqa: F811
    store = make_engine(empty_url)
    try:
        seed_demo(store)
        known_rows(store)
        add(store, "approved", "approved", reviewer="zoe", waited_ms=9, at=NOW - timedelta(days=2))
        figures = approval_insight(store, "demo", SINCE, UNTIL)
        assert "insight_days" in inspect(raw).get_table_names()
        assert SHADOW_INDEX in indexes(raw)

        to_revision(raw, BEFORE)
        assert current_revision(raw) == BEFORE
        assert "insight_days" not in inspect(raw).get_table_names()
        assert SHADOW_INDEX not in indexes(raw)
        assert "ix_decisions_tenant_insight" in indexes(raw)  # 0013's own, kept

        migrate(raw, writer(raw))
        assert "insight_days" in inspect(raw).get_table_names()
        assert SHADOW_INDEX in indexes(raw)
        assert approval_insight(store, "demo", SINCE, UNTIL) == figures
        with use_session(store) as session:  # the period's past days, rolled up again
            rolled = session.scalar(select(func.count()).select_from(DAYS))
        assert rolled == len(whole_days(SINCE, UNTIL))
    finally:
        store.dispose()
