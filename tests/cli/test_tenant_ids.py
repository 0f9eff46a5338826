"""A tenant id with '-' is refused at every entry: a run id must name one tenant's run."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from activities.store import Tenant
from signoff.config.settings import get_settings
from signoff.wiring.app import app
from signoff.wiring.local_stack import free_port


@pytest.fixture
def cli(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> CliRunner:
    monkeypatch.setenv("SIGNOFF_HOME", str(tmp_path))
    monkeypatch.setenv("SIGNOFF_TEMPORAL_ADDRESS", f"127.0.0.1:{free_port()}")
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    get_settings.cache_clear()
    yield CliRunner()
    get_settings.cache_clear()


def test_signoff_run_refuses_a_dashed_tenant(cli: CliRunner) -> None:
    cli.invoke(app, ["seed"])
    result = cli.invoke(app, ["run", "--ticket", "T-4512", "--tenant", "demo-x"])
    assert result.exit_code == 2
    assert "may not contain '-'" in result.stderr


def test_signoff_triage_refuses_a_dashed_tenant(cli: CliRunner) -> None:
    cli.invoke(app, ["seed"])
    result = cli.invoke(app, ["triage", "--ticket", "T-4512", "--tenant", "demo-x"])
    assert result.exit_code == 2
    assert "may not contain '-'" in result.stderr


def test_ticket_add_refuses_a_dashed_tenant(cli: CliRunner, tmp_path: Path) -> None:
    text = tmp_path / "ticket.txt"
    text.write_text("Where is my parcel?", encoding="utf-8")
    result = cli.invoke(app, ["ticket", "add", "--tenant", "demo-x", "--text-file", str(text)])
    assert result.exit_code == 2
    assert "may not contain '-'" in result.stderr


def test_the_store_refuses_to_create_a_dashed_tenant() -> None:
    with pytest.raises(ValueError, match="may not contain '-'"):
        Tenant(id="demo-x", name="Demo X")


def test_the_demo_tenants_still_fit(seeded_engine: object) -> None:
    # seeded_engine ran seed_demo, whose tenants demo and globex went through the check.
    assert Tenant(id="demo", name="Demo").id == "demo"
    assert Tenant(id="globex", name="Globex").id == "globex"
