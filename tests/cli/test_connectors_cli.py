"""`signoff connectors` and `signoff connectors reset NAME`, on a real SQLite store
another process wrote the breakers to: the list shows each configured connector and
each breaker with its state; a reset closes an open one; an unknown name is bad input
(exit 2), never a traceback."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest
from typer.testing import CliRunner

from activities.connectors.breaker import BreakerPolicy
from activities.store import make_engine, seed_demo
from activities.store.connector_breakers import record_failure
from signoff.config.settings import get_settings
from signoff.wiring.app import app
from tests.clock import clock_now

POLICY = BreakerPolicy(
    failures_to_open=2, cooldown=timedelta(minutes=10), trial_timeout=timedelta(minutes=1)
)


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A store where the worker's breaker of demo's helpdesk opened; globex's is
    configured and never failed."""
    connectors = tmp_path / "helpdesks.json"
    connectors.write_text(
        json.dumps(
            {
                "demo": {"kind": "webhook", "url": "http://127.0.0.1:9/replies"},
                "globex": {"kind": "webhook", "url": "http://127.0.0.1:9/replies"},
            }
        )
    )
    os.chmod(connectors, 0o600)
    monkeypatch.setenv("SIGNOFF_HOME", str(tmp_path))
    monkeypatch.setenv("SIGNOFF_HELPDESK_CONNECTORS", str(connectors))
    get_settings.cache_clear()
    engine = make_engine(get_settings().resolved_database_url)
    seed_demo(engine)
    for _ in range(POLICY.failures_to_open):
        record_failure(engine, "helpdesk:demo", POLICY, clock_now(), "HTTP 503")
    engine.dispose()
    yield tmp_path
    get_settings.cache_clear()


def test_the_list_shows_each_connector_and_its_breaker(home: Path) -> None:
    shown = CliRunner().invoke(app, ["connectors"])
    assert shown.exit_code == 0, shown.output
    demo, globex = shown.stdout.splitlines()[1:]
    assert demo.split()[:3] == ["helpdesk:demo", "open", "2"] and "HTTP 503" in demo
    assert globex.split()[:3] == ["helpdesk:globex", "closed", "0"]
    listed = json.loads(CliRunner().invoke(app, ["connectors", "--json"]).stdout)
    assert [(c["name"], c["state"]) for c in listed] == [
        ("helpdesk:demo", "open"),
        ("helpdesk:globex", "closed"),
    ]
    assert listed[0]["open_until"] is not None and listed[0]["configured"] is True


def test_a_reset_closes_the_breaker_and_an_unknown_name_is_bad_input(home: Path) -> None:
    cli = CliRunner()
    reset = cli.invoke(app, ["connectors", "reset", "helpdesk:demo"])
    assert reset.exit_code == 0 and "helpdesk:demo: closed" in reset.stdout
    listed = json.loads(cli.invoke(app, ["connectors", "--json"]).stdout)
    assert {c["state"] for c in listed} == {"closed"}
    again = cli.invoke(app, ["connectors", "reset", "helpdesk:demo"])
    assert again.exit_code == 0 and "closed already" in again.stdout
    unknown = cli.invoke(app, ["connectors", "reset", "helpdesk:nobody"])
    assert unknown.exit_code == 2
    assert "No connector is named 'helpdesk:nobody'" in unknown.stderr
    assert "Traceback" not in unknown.output


def test_a_stack_will_not_start_on_a_helpdesk_file_it_cannot_use(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    secrets = home / "intake-secrets.json"
    secrets.write_text(json.dumps({"demo": {"generic": "x" * 40}}))
    os.chmod(secrets, 0o644)
    monkeypatch.setenv("SIGNOFF_INTAKE_SECRETS", str(secrets))
    get_settings.cache_clear()
    refused = CliRunner().invoke(app, ["dev"])
    assert refused.exit_code == 2
    assert f"Run `chmod 600 {secrets}`" in refused.stderr and "Traceback" not in refused.output
    assert "x" * 40 not in refused.output
