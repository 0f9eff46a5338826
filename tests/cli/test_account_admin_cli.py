"""`signoff user ...` as an administrator, from the command line (issue 24, section 3):
without a credential a change is refused in one sentence (exit 2), nothing is written
and the attempt is in the audit; the bootstrap makes the first administrator on a store
without one, and only then; `signoff run --as` proves who asks before anything starts;
the production seed prints one-time passwords, `--demo` keeps the demo ones."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest
from sqlalchemy import Engine, func, select
from sqlalchemy.orm import Session
from typer.testing import CliRunner

from activities.store import (
    Tenant,
    get_reviewer,
    issue_token,
    make_engine,
    seed_demo,
    write_transaction,
)
from activities.store.account_schema import ApiToken
from activities.store.decisions import ACCOUNT_CHANGE, ACCOUNT_REFUSED
from activities.store.passwords import verify_password
from activities.store.schema import DecisionRow
from signoff.config.settings import get_settings
from signoff.wiring.app import app
from signoff.wiring.local_stack import free_port
from tests.admin import ADMIN


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    monkeypatch.setenv("SIGNOFF_HOME", str(tmp_path))
    monkeypatch.setenv("SIGNOFF_TEMPORAL_ADDRESS", f"127.0.0.1:{free_port()}")
    monkeypatch.delenv("SIGNOFF_TOKEN", raising=False)
    get_settings.cache_clear()
    yield tmp_path
    get_settings.cache_clear()


@pytest.fixture
def store(home: Path) -> Iterator[Engine]:
    engine = make_engine(f"sqlite:///{home / 'signoff.db'}")
    yield engine
    engine.dispose()


def signoff(*args: str, stdin: str | None = None) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, list(args), input=stdin)
    return result.exit_code, result.stdout, result.stderr


def audit_kinds(store: Engine) -> list[tuple[str, str | None, str]]:
    with Session(store) as session:
        rows = session.scalars(select(DecisionRow).order_by(DecisionRow.id))
        return [(row.kind, row.reviewer_id, row.reason) for row in rows]


def tokens(store: Engine) -> int:
    with Session(store) as session:
        return int(session.scalar(select(func.count()).select_from(ApiToken)) or 0)


def test_a_token_minted_without_admin_is_refused_with_nothing_written(store: Engine) -> None:
    seed_demo(store)
    code, out, err = signoff("user", "token", "alice")
    assert code == 2 and out == ""
    [line] = err.strip().splitlines()
    assert "No credential was given" in line and "--as ADMIN" in line
    assert "Traceback" not in err
    assert tokens(store) == 0
    assert audit_kinds(store) == [
        (ACCOUNT_REFUSED, None, "refused `user token alice`: No credential was given.")
    ]


def test_a_reviewers_tokens_are_listed_to_an_administrator_only(
    store: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Which tokens live and when they end tells an attacker which to aim at."""
    seed_demo(store)
    _, _, alices = issue_token(store, ADMIN, "alice", timedelta(days=1))
    for credential in ([], ["--as", "alice"]):  # none, then alice's own token
        monkeypatch.setenv("SIGNOFF_TOKEN", alices)
        get_settings.cache_clear()
        code, out, err = signoff("user", "tokens", "alice", "--json", *credential)
        assert code == 2 and out == "", out
        assert "Account changes need an administrator's credential" in err
        kind, _, what = audit_kinds(store)[-1]
        assert kind == ACCOUNT_REFUSED and "refused `user tokens alice`" in what
    admin = issue_token(store, ADMIN, "admin", timedelta(days=1))[2]
    monkeypatch.setenv("SIGNOFF_TOKEN", admin)
    get_settings.cache_clear()
    code, out, _ = signoff("user", "tokens", "alice", "--json", "--as", "admin")
    assert code == 0 and [item["status"] for item in json.loads(out)] == ["active"]
    assert audit_kinds(store)[-1][2] == "user tokens alice: 1 API token(s) listed"


def test_as_admin_without_a_token_or_a_terminal_is_one_sentence(store: Engine) -> None:
    seed_demo(store)
    code, out, err = signoff("user", "token", "alice", "--as", "admin")
    assert code == 2 and out == ""
    [line] = err.strip().splitlines()
    assert "No terminal to ask admin's password" in line and "SIGNOFF_TOKEN" in line
    assert "Aborted" not in err and tokens(store) == 0


def test_a_reviewers_own_token_is_no_admin_credential(
    store: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    """alice cannot mint bob's token with her own: four eyes stay two people."""
    seed_demo(store)
    _, _, alices = issue_token(store, ADMIN, "alice", timedelta(days=1))
    monkeypatch.setenv("SIGNOFF_TOKEN", alices)
    get_settings.cache_clear()
    code, _, err = signoff("user", "token", "bob", "--as", "alice")
    assert code == 2 and "'alice' is not an administrator" in err
    assert tokens(store) == 1  # alice's own, nothing for bob
    kind, who, what = audit_kinds(store)[-1]
    assert (kind, who) == (ACCOUNT_REFUSED, "alice") and "user token bob" in what


def test_the_first_account_is_the_bootstrap_administrator(store: Engine) -> None:
    with write_transaction(store) as session:
        session.add(Tenant(id="acme", name="Acme"))
    code, _, err = signoff(
        "user", "add", "erin", "--tenant", "acme", "--password-stdin", stdin="long enough pw\n"
    )
    assert code == 2 and "first account must be one" in err and "--role admin" in err
    code, out, err = signoff(
        "user", "add", "root", "--tenant", "acme", "--role", "admin", "--password-stdin",
        stdin="long enough pw\n",
    )  # fmt: skip
    assert code == 0, err
    code, _, err = signoff(
        "user", "add", "eve", "--tenant", "acme", "--role", "admin", "--password-stdin",
        stdin="long enough pw\n",
    )  # fmt: skip
    assert code == 2 and "No credential was given" in err
    assert get_reviewer(store, "eve") is None
    kinds = [(kind, who) for kind, who, _ in audit_kinds(store)]
    assert kinds == [(ACCOUNT_CHANGE, "root"), (ACCOUNT_REFUSED, None)]


@pytest.mark.parametrize(
    ("name", "password", "why"),
    [
        ("alice", "not hers", "Wrong password for 'alice'"),
        ("carol", "demo-carol", "belongs to tenant 'globex', not 'demo'"),
    ],
)
def test_run_as_proves_who_asks_before_anything_starts(
    store: Engine, name: str, password: str, why: str
) -> None:
    seed_demo(store)
    code, out, err = signoff(
        "run", "--ticket", "T-4512", "--as", name, "--password-stdin", stdin=password + "\n"
    )
    assert code == 2 and out == ""
    assert why in err and "Nothing was started" in err


def test_the_production_seed_prints_one_time_passwords(store: Engine) -> None:
    code, out, _ = signoff("seed", "--json")
    assert code == 0
    passwords = json.loads(out)["one_time_passwords"]
    assert set(passwords) == {"alice", "bob", "carol", "dave", "admin"}
    alice = get_reviewer(store, "alice")
    assert alice is not None and not verify_password("demo-alice", alice.password_hash)
    assert verify_password(passwords["alice"], alice.password_hash)
    assert len(set(passwords.values())) == len(passwords)  # each its own
    code, out, _ = signoff("seed", "--json")  # seeding again shows no password again
    assert code == 0 and json.loads(out)["one_time_passwords"] == {}


def test_the_demo_seed_keeps_the_demo_passwords(store: Engine) -> None:
    code, out, _ = signoff("seed", "--demo")
    assert code == 0 and "One-time" not in out
    alice = get_reviewer(store, "alice")
    assert alice is not None and verify_password("demo-alice", alice.password_hash)
