"""`signoff pending`'s driver-only read gives the pages the store's own read gives, on
both backends, or steps aside: every page and count, one tenant or all, the same
cursors; and for a store it cannot be sure of (another revision, no file yet) it answers
None, so that the store's path creates, migrates or refuses it."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import Engine, text

from signoff.config.settings import Settings
from signoff.service.handles import Store
from signoff.service.paging import InvalidCursor
from signoff.service.pending_quick import quick_pending_page
from signoff.service.waiting_listing import read_pending_page
from tests.store.test_waiting_pages import COUNT, waiting  # noqa: F401 (the fixture)


def settings_of(store: Engine) -> Settings:
    return Settings(database_url=store.url.render_as_string(hide_password=False))


# Every tenant in one page: the fixture's globex hashes are not hex, so no cursor on them.
@pytest.mark.parametrize(("tenant", "limit"), [("demo", 5), ("demo", 50), (None, 50)])
def test_every_page_is_the_stores_own(waiting: Engine, tenant: str | None, limit: int) -> None:  # noqa: F811
    settings = settings_of(waiting)
    after, pages = None, 0
    while True:
        quick = quick_pending_page(settings, tenant, limit, after)
        assert quick == read_pending_page(Store(waiting), tenant, limit, after)
        pages += 1
        if quick.page.next is None:
            break
        after = quick.page.next
    everyone = COUNT + 4 if tenant is None else COUNT
    assert quick.page.total == everyone
    assert pages == -(-everyone // limit)


def test_a_cursor_it_did_not_give_is_refused(waiting: Engine) -> None:  # noqa: F811
    with pytest.raises(InvalidCursor):
        quick_pending_page(settings_of(waiting), "demo", 5, "p1.forged")


def test_a_store_at_another_revision_is_left_to_the_store(waiting: Engine) -> None:  # noqa: F811
    with waiting.begin() as connection:
        revision = connection.execute(text("SELECT version_num FROM alembic_version")).scalar()
        connection.execute(text("UPDATE alembic_version SET version_num = '0007_older'"))
    try:
        assert quick_pending_page(settings_of(waiting), "demo", 5) is None
    finally:
        # PostgreSQL's database is the process's, and its version row outlives the test's
        # tables: the next store test would find an unknown revision there.
        with waiting.begin() as connection:
            connection.execute(
                text("UPDATE alembic_version SET version_num = :revision"), {"revision": revision}
            )


def test_no_store_yet_is_left_to_the_store_and_not_created(tmp_path: Path) -> None:
    missing = tmp_path / "signoff.db"
    assert quick_pending_page(Settings(home=tmp_path), None, 5) is None
    assert not missing.exists()
