from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import Engine

from activities.store.database import make_engine
from activities.store.seed import seed_demo


@pytest.fixture
def engine(tmp_path: Path) -> Iterator[Engine]:
    engine = make_engine(f"sqlite:///{tmp_path / 'nested' / 'signoff.db'}")
    yield engine
    engine.dispose()


@pytest.fixture
def seeded(engine: Engine) -> Engine:
    seed_demo(engine)
    return engine
