"""A face holds the service's `Store` and `Runs` and cannot reach through them: no public
attribute or method leads to the SQLAlchemy engine or the Temporal client, nothing it
prints shows the store's address, and mypy refuses a face that uses one as an engine or
a client (signoff/service/handles.py). What a face may not import to unwrap them is
tests/unit/test_face_imports.py's."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from mypy import api as mypy_api
from sqlalchemy import Engine

from signoff.config.settings import Settings
from signoff.service.handles import Runs, Store, engine_of
from signoff.service.shop import get_ticket
from signoff.service.store import close_store, open_store

REPO = Path(__file__).resolve().parents[2]


def public_names(thing: object) -> list[str]:
    return [name for name in dir(thing) if not name.startswith("_")]


@pytest.mark.parametrize("handle", [Store, Runs])
def test_neither_handle_has_a_public_attribute_or_method(handle: type) -> None:
    assert public_names(handle) == []


def test_an_open_store_shows_nothing_of_its_engine(tmp_path: Path) -> None:
    store = open_store(Settings(home=tmp_path))
    try:
        assert isinstance(engine_of(store), Engine)  # it does hold the engine...
        assert public_names(store) == []  # ...where a face cannot reach it
        assert str(tmp_path) not in repr(store)
        assert get_ticket(store, "demo", "T-0000") is None  # the service unwraps it
    finally:
        close_store(store)


FACE = textwrap.dedent(
    """
    from signoff.service.run_control import Runs
    from signoff.service.store import Store, close_store


    def passes_them_on(store: Store) -> None:
        close_store(store)


    def uses_the_store_as_an_engine(store: Store) -> None:
        store.connect()


    async def uses_the_runs_as_a_client(runs: Runs) -> None:
        await runs.start_workflow("AgentRun", id="x", task_queue="q")
    """
)


# mypy reads our own modules and none of the installed packages (`--no-site-packages`;
# pyproject.toml ignores missing imports): SQLAlchemy, temporalio and pydantic are then
# `Any`, so a handle that were an engine or a client, or inherited from one, would let
# both calls through and this test would fail. Checking the installed packages as well
# took 40 to 80 s of CPU on a fresh clone, against 2 s without them; `make lint` runs
# the full check over the real faces.
def test_mypy_refuses_a_face_that_uses_a_handle_as_an_engine_or_a_client(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(REPO)  # where mypy finds our packages
    face = tmp_path / "a_face.py"
    face.write_text(FACE)
    report, _, _ = mypy_api.run(
        [
            "--config-file",
            str(REPO / "pyproject.toml"),
            "--strict",
            "--no-site-packages",
            "--cache-dir",
            str(tmp_path / "mypy_cache"),
            str(face),
        ]
    )
    # Our modules' own errors without the packages' types (`Any` returned) are not the
    # face's: only the face's lines are judged.
    errors = sorted(
        line.split(": error: ")[1]
        for line in report.splitlines()
        if line.startswith(str(face)) and ": error: " in line
    )
    assert errors == [
        '"Runs" has no attribute "start_workflow"  [attr-defined]',
        '"Store" has no attribute "connect"  [attr-defined]',
    ]
