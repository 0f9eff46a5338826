"""Fixtures of the workflow tests.

Most tests share the session's time-skipping server. A test that lets a run end while
one of its activities is still running takes its own server: the test server keeps
that activity's time-skipping lock once the workflow has completed
(https://github.com/temporalio/sdk-java/issues/1138), and every later test that needs
time to skip would stall on the shared one.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import Engine

from activities.store import make_engine, seed_demo


@pytest.fixture
def seeded_engine(tmp_path: Path) -> Iterator[Engine]:
    """The demo shop's records in a fresh SQLite file, for the real tool gateway."""
    engine = make_engine(f"sqlite:///{tmp_path / 'signoff.db'}")
    seed_demo(engine)
    yield engine
    engine.dispose()
