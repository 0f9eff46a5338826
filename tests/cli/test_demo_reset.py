"""`signoff demo reset` deletes only what is surely the demo's (issue 42): a store that
SIGNOFF_DATABASE_URL names, a Temporal server off this machine, or a demo still running
is refused with why, and nothing is deleted. The whole reset, after a refund on a real
demo, is tests/e2e/test_demo_reset.py."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from signoff.config.settings import get_settings
from signoff.wiring.app import app
from signoff.wiring.local_stack import free_port

HOST_FILES = ("decision-signing-keys.json", "decision-public-keys.json", "temporal.log")
DEMO_FILES = ("signoff.db", "signoff.db-wal", "temporal.db")


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A home as `signoff dev` leaves it (its Temporal port free: the demo stopped)."""
    for name in (*HOST_FILES, *DEMO_FILES):
        (tmp_path / name).write_text("kept until the reset")
    monkeypatch.setenv("SIGNOFF_HOME", str(tmp_path))
    monkeypatch.setenv("SIGNOFF_TEMPORAL_ADDRESS", f"127.0.0.1:{free_port()}")
    monkeypatch.delenv("SIGNOFF_DATABASE_URL", raising=False)
    get_settings.cache_clear()
    yield tmp_path
    get_settings.cache_clear()


def reset() -> tuple[int, str, str]:
    result = CliRunner().invoke(app, ["demo", "reset"])
    return result.exit_code, result.stdout, result.stderr


def left(home: Path) -> set[str]:
    return {path.name for path in home.iterdir()}


def test_the_reset_deletes_the_demos_data_and_keeps_the_hosts(home: Path) -> None:
    code, out, err = reset()
    assert code == 0, err
    assert "Demo reset: deleted signoff.db, signoff.db-wal, temporal.db" in out
    assert left(home) == set(HOST_FILES)
    code, out, _ = reset()  # nothing left: said, not an error
    assert code == 0 and "Nothing to reset" in out


def test_a_store_named_by_the_database_url_is_never_deleted(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SIGNOFF_DATABASE_URL", f"sqlite:///{home / 'signoff.db'}")
    get_settings.cache_clear()
    code, _, err = reset()
    assert code == 2 and "SIGNOFF_DATABASE_URL names a store of its own" in err
    assert "Nothing was deleted" in err and left(home) == {*HOST_FILES, *DEMO_FILES}


def test_a_temporal_server_elsewhere_is_not_the_demos(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SIGNOFF_TEMPORAL_ADDRESS", "temporal.internal:7233")
    get_settings.cache_clear()
    code, _, err = reset()
    assert code == 2 and "not the demo's on this machine" in err
    assert left(home) == {*HOST_FILES, *DEMO_FILES}


def test_a_running_demo_is_not_reset(home: Path) -> None:
    address = get_settings().temporal_address
    host, _, port = address.rpartition(":")
    with socket.socket() as server:  # the demo's Temporal server, listening
        server.bind((host, int(port)))
        server.listen()
        code, _, err = reset()
    assert code == 2 and "stop `make demo` with Ctrl-C first" in err
    assert left(home) == {*HOST_FILES, *DEMO_FILES}
