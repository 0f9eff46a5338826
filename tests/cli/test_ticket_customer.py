"""`signoff ticket add --customer NAME` records who wrote the ticket (issue 14): the
store holds the name, and the reviewer's pages show it instead of "(from unknown)"."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from activities.store import get_ticket, make_engine
from signoff.config.settings import get_settings
from signoff.wiring.app import app


@pytest.fixture
def cli(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[CliRunner]:
    monkeypatch.setenv("SIGNOFF_HOME", str(tmp_path))
    get_settings.cache_clear()
    yield CliRunner()
    get_settings.cache_clear()


def test_ticket_add_records_the_customer_who_wrote_it(cli: CliRunner) -> None:
    assert cli.invoke(app, ["seed"]).exit_code == 0
    result = cli.invoke(
        app,
        ["ticket", "add", "--tenant", "demo", "--order", "C-1042", "--customer", "Marie Dupont"]
        + ["--text-file", "-", "--json"],
        input="The vase is broken.\n",
    )
    assert result.exit_code == 0, result.stderr
    document = json.loads(result.stdout)
    assert document["customer"] == "Marie Dupont"
    engine = make_engine(get_settings().resolved_database_url)
    try:
        ticket = get_ticket(engine, "demo", document["ticket_id"])
    finally:
        engine.dispose()
    assert ticket is not None and ticket.customer_name == "Marie Dupont"


def test_a_customer_name_past_the_limit_is_refused_in_words(cli: CliRunner) -> None:
    assert cli.invoke(app, ["seed"]).exit_code == 0
    result = cli.invoke(
        app,
        ["ticket", "add", "--tenant", "demo", "--customer", "x" * 1000, "--text-file", "-"],
        input="Hello.\n",
    )
    assert result.exit_code == 2
    assert "customer name has 1000 characters" in result.stderr


@pytest.mark.parametrize(
    ("customer", "text", "named"),
    [("Kim", "The vase\x00 is broken.", "ticket text"), ("Kim\x00", "Broken.", "customer name")],
)
def test_a_nul_byte_in_a_ticket_is_refused_in_words(
    cli: CliRunner, customer: str, text: str, named: str
) -> None:
    assert cli.invoke(app, ["seed"]).exit_code == 0
    result = cli.invoke(
        app,
        ["ticket", "add", "--tenant", "demo", "--customer", customer, "--text-file", "-"],
        input=text,
    )
    assert result.exit_code == 2
    assert f"The {named} holds a NUL byte (\\x00)" in result.stderr
    assert "\x00" not in result.stderr
