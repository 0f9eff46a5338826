"""`signoff rules add|list|revoke`: through a real decision service (the reviewer UI
server, its own home, store and key ring), as an administrator; bad input is exit 2
with what to change, a non-administrator is refused, nothing answering is exit 1."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from activities.store import make_engine, seed_demo
from approvals_ui.main import create_app
from signoff.config.settings import Settings, get_settings
from signoff.service.handles import Store
from signoff.service.standing_rules import rules_of
from signoff.wiring.app import app
from signoff.wiring.local_stack import free_port
from tests.live_ui import served

ADD = ["rules", "add", "--tool", "refund", "--max-amount", "50.00", "--currency", "EUR"]
BOUNDS = ["--lifetime", "7d", "--max-uses", "20"]


@pytest.fixture(scope="module")
def service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Settings, str]]:
    settings = Settings(
        home=tmp_path_factory.mktemp("service"),
        temporal_address=f"127.0.0.1:{free_port()}",
        ui_secret=None,
    )
    engine = make_engine(settings.resolved_database_url)
    seed_demo(engine)
    engine.dispose()
    with served(create_app(settings)) as url:
        yield settings, url


@pytest.fixture
def cli(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, service: tuple[Settings, str]
) -> Iterator[CliRunner]:
    monkeypatch.setenv("SIGNOFF_HOME", str(tmp_path))
    monkeypatch.setenv("SIGNOFF_DECISION_SERVICE_URL", service[1])
    monkeypatch.delenv("SIGNOFF_TOKEN", raising=False)
    get_settings.cache_clear()
    yield CliRunner()
    get_settings.cache_clear()


def run(cli: CliRunner, args: list[str], name: str = "admin") -> tuple[int, str, str]:
    result = cli.invoke(app, [*args, "--as", name, "--password-stdin"], input=f"demo-{name}\n")
    return result.exit_code, result.stdout, result.stderr


def test_an_administrator_adds_lists_and_revokes_a_rule(
    cli: CliRunner, service: tuple[Settings, str]
) -> None:
    code, out, err = run(cli, [*ADD, *BOUNDS, "--customer", "Marie Dupont", "--json"])
    assert code == 0, err
    made = json.loads(out)
    assert (made["tool"], made["max_amount"], made["customer"], made["state"]) == (
        "refund",
        "50.00",
        "Marie Dupont",
        "active",
    )

    code, out, _ = run(cli, ["rules", "list"])
    assert code == 0 and made["id"] in out and "active" in out
    code, out, _ = run(cli, ["rules", "revoke", made["id"]])
    assert (code, out.strip()) == (0, f"{made['id']} revoked after 0 of 20 use(s).")
    code, out, _ = run(cli, ["rules", "list"])
    assert made["id"] not in out
    code, out, _ = run(cli, ["rules", "list", "--all"])
    assert made["id"] in out and "revoked" in out

    engine = make_engine(service[0].resolved_database_url)
    assert [
        r.state for r in rules_of(Store(engine), "demo", everything=True) if r.id == made["id"]
    ] == ["revoked"]
    engine.dispose()


def test_a_reviewer_who_is_no_administrator_makes_nothing(cli: CliRunner) -> None:
    code, _, err = run(cli, [*ADD, *BOUNDS], name="alice")
    assert code == 2
    assert "Standing rules are made, listed and revoked by an administrator" in err


def test_an_administrator_of_demo_cannot_make_a_rule_for_globex(cli: CliRunner) -> None:
    code, _, err = run(cli, [*ADD, *BOUNDS, "--tenant", "globex"])
    assert code == 2
    assert "administrator of another tenant" in err and "in the audit" in err


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["rules", "add", "--tool", "refund", "--lifetime", "7d", "--max-uses", "2"], "maximum"),
        ([*ADD, "--lifetime", "soon", "--max-uses", "2"], "not a lifetime"),
        ([*ADD, "--lifetime", "7d", "--max-uses", "0"], "at least 1"),
        ([*ADD[:-1], "XXX", *BOUNDS], "'XXX' is not the ISO 4217 code of a currency in use"),
        ([*ADD[:-1], "XTS", *BOUNDS], "'XTS' is not the ISO 4217 code"),
        ([*ADD, *BOUNDS, "--customer", "Kim\x00"], "The customer holds a NUL byte (\\x00)"),
        (["rules", "revoke", "SR-00000000AA"], "no standing rule 'SR-00000000AA'"),
        (["rules", "revoke", "sr-00000000aa"], "no standing rule 'SR-00000000AA'"),
        (["rules", "revoke", "SR-NOSUCH"], "'SR-NOSUCH' is not a standing rule's id"),
        (["rules", "revoke", "x/../../y"], "'x/../../y' is not a standing rule's id"),
    ],
)
def test_bad_input_is_exit_2_with_what_to_change(
    cli: CliRunner, args: list[str], message: str
) -> None:
    code, _, err = run(cli, args)
    assert code == 2 and message in err, err
    assert "Traceback" not in err


def test_a_wrong_password_changes_nothing(cli: CliRunner) -> None:
    result = cli.invoke(app, [*ADD, *BOUNDS, "--as", "admin", "--password-stdin"], input="no\n")
    assert result.exit_code == 2
    assert "Wrong password for 'admin'" in result.stderr


def test_no_decision_service_is_exit_1(cli: CliRunner, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SIGNOFF_DECISION_SERVICE_URL", f"http://127.0.0.1:{free_port()}")
    get_settings.cache_clear()
    code, _, err = run(cli, ["rules", "list"])
    assert code == 1 and "did not answer. Nothing was changed." in err
