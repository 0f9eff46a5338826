from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import Engine

from activities.store.database import make_engine
from tests.conftest import fresh_demo_store


@pytest.fixture
def engine(tmp_path: Path) -> Iterator[Engine]:
    engine = make_engine(f"sqlite:///{tmp_path / 'nested' / 'signoff.db'}")
    yield engine
    engine.dispose()


@pytest.fixture
def seeded(demo_store_template: Path, tmp_path: Path) -> Iterator[Engine]:
    engine = fresh_demo_store(demo_store_template, tmp_path / "seeded.db")
    yield engine
    engine.dispose()
