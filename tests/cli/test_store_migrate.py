"""`signoff store migrate` on SQLite, where there are no roles: it migrates and grants
nothing; and a process told not to migrate refuses an unmigrated store, saying what to
run (exit 2). The PostgreSQL side, with two roles: tests/store/test_runtime_role.py."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from signoff.config.settings import get_settings
from signoff.wiring.app import app


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("SIGNOFF_HOME", str(tmp_path))
    get_settings.cache_clear()
    return tmp_path


def test_a_process_that_may_not_migrate_waits_for_the_migration(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SIGNOFF_MIGRATE_AT_START", "false")
    get_settings.cache_clear()
    refused = CliRunner().invoke(app, ["audit", "verify"])
    assert refused.exit_code == 2, refused.output
    assert "Run `signoff store migrate`" in refused.stderr
    migrated = CliRunner().invoke(app, ["store", "migrate"])
    assert migrated.exit_code == 0, migrated.output
    assert "no runtime role granted: SIGNOFF_MIGRATION_DATABASE_URL unset, or SQLite" in (
        migrated.stdout
    )
    assert CliRunner().invoke(app, ["audit", "verify"]).exit_code == 0
