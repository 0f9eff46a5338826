"""Store fixtures: every test here runs on SQLite and on a real PostgreSQL.

The PostgreSQL cluster starts once per session, on first use; each test gets freshly
created tables and the demo data, so tests stay independent.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest
from sqlalchemy import Engine
from sqlalchemy.engine import make_url

from activities.store.database import make_engine
from activities.store.schema import Base
from activities.store.seed import seed_demo
from tests.conftest import fresh_demo_store
from tests.postgres import PostgresUnavailable, postgres_cluster

# PostgreSQL's parameter is marked: `make test-fast` runs the store on SQLite alone.
BACKENDS = ["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)]


@pytest.fixture(scope="session")
def postgres_url() -> Iterator[str]:
    try:
        with postgres_cluster() as url:
            yield url
    except PostgresUnavailable as error:
        # Not a skip: `make test` must really test PostgreSQL.
        pytest.fail(str(error), pytrace=False)


@pytest.fixture(scope="session")
def postgres_repeatable_read_url(postgres_url: str) -> str:
    """A second database on the same cluster whose default isolation is REPEATABLE READ:
    code that silently relied on READ COMMITTED behaves differently here."""
    url = make_url(postgres_url)
    name = f"{url.database}_repeatable_read"
    with psycopg.connect(
        host=url.host, port=url.port, user=url.username, dbname="postgres", autocommit=True
    ) as admin:
        admin.execute(f"CREATE DATABASE {name}")
        admin.execute(
            f"ALTER DATABASE {name} SET default_transaction_isolation = 'repeatable read'"
        )
    return url.set(database=name).render_as_string(hide_password=False)


@pytest.fixture(params=BACKENDS)
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Engine]:
    """A seeded store on each backend."""
    if request.param == "sqlite":
        template = request.getfixturevalue("demo_store_template")
        engine = fresh_demo_store(template, tmp_path / "signoff.db")
    else:
        engine = make_engine(request.getfixturevalue("postgres_url"))
        Base.metadata.drop_all(engine)
        Base.metadata.create_all(engine)
        seed_demo(engine)
    yield engine
    engine.dispose()
