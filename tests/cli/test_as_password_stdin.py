"""`--password-stdin` beside every `--as`: each command that proves a person by `--as NAME`
reads NAME's password from stdin the same way, so a script needs no terminal and no
API token (issue 42: `signoff user language alice fr --as admin` had none).

The walk over the command tree finds the commands, so a new command with `--as` and no
way to pass the password fails here without editing this test.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import Engine
from typer import _click
from typer.core import TyperGroup
from typer.main import get_command
from typer.testing import CliRunner

from activities.store import demo_password, get_reviewer
from activities.store.passwords import verify_password
from signoff.config.settings import get_settings
from signoff.service.handles import Store
from signoff.service.languages import preferred_language
from signoff.wiring.app import app
from signoff.wiring.local_stack import free_port
from tests.conftest import fresh_demo_store

ADMIN_LINE = demo_password("admin") + "\n"


def commands_with_as() -> dict[str, dict[str, str]]:
    """Each command of `signoff` that takes `--as`: its options' names and help."""
    found: dict[str, dict[str, str]] = {}

    def walk(command: _click.Command, context: _click.Context) -> None:
        names = {
            name: str(getattr(param, "help", "") or "")
            for param in command.get_params(context)
            for name in param.opts
        }
        if "--as" in names:
            found[context.command_path] = names
        if isinstance(command, TyperGroup):
            for name in command.list_commands(context):
                sub = command.get_command(context, name)
                if sub is not None:
                    walk(sub, _click.Context(sub, info_name=name, parent=context))

    group = get_command(app)
    walk(group, _click.Context(group, info_name="signoff"))
    return found


def test_every_command_that_takes_as_takes_password_stdin() -> None:
    found = commands_with_as()
    # The admin commands of issue 42, and those that had it already.
    for expected in ("user language", "user roles", "user token", "user tokens", "run"):
        assert f"signoff {expected}" in found
    assert [path for path, names in found.items() if "--password-stdin" not in names] == []
    # One option, one help: only where stdin also carries a new password does it differ.
    shared = found["signoff run"]["--password-stdin"]
    assert shared.startswith("With --as: read that person's password from stdin")
    differs = {path for path, names in found.items() if names["--password-stdin"] != shared}
    assert differs == {"signoff user add", "signoff user passwd"}


@pytest.fixture
def store(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, demo_store_template: Path
) -> Iterator[Engine]:
    monkeypatch.setenv("SIGNOFF_HOME", str(tmp_path))
    monkeypatch.setenv("SIGNOFF_TEMPORAL_ADDRESS", f"127.0.0.1:{free_port()}")
    monkeypatch.delenv("SIGNOFF_TOKEN", raising=False)  # the password alone proves admin
    get_settings.cache_clear()
    engine = fresh_demo_store(demo_store_template, tmp_path / "signoff.db")
    yield engine
    engine.dispose()
    get_settings.cache_clear()


def signoff(*args: str, stdin: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, list(args), input=stdin)
    return result.exit_code, result.stdout, result.stderr


def test_an_administrator_sets_a_language_with_the_password_on_stdin(store: Engine) -> None:
    code, out, err = signoff(
        "user", "language", "alice", "fr", "--as", "admin", "--password-stdin", stdin=ADMIN_LINE
    )
    assert code == 0, err
    assert "reviewer alice: language fr" in out
    assert preferred_language(Store(store), "alice") == "fr"


def test_a_wrong_password_on_stdin_changes_nothing(store: Engine) -> None:
    code, _, err = signoff(
        "user", "roles", "dave", "--add", "refund_approver", "--as", "admin",
        "--password-stdin", stdin="not-the-password\n",
    )  # fmt: skip
    assert code == 2 and err.strip(), err
    reviewer = get_reviewer(store, "dave")
    assert reviewer is not None and "refund_approver" not in reviewer.roles


def test_password_stdin_without_as_says_whose_password_is_missing(store: Engine) -> None:
    code, _, err = signoff("user", "language", "alice", "fr", "--password-stdin", stdin=ADMIN_LINE)
    assert code == 2 and "--password-stdin needs --as NAME" in err
    assert preferred_language(Store(store), "alice") is None


def test_an_empty_stdin_is_refused_before_anything_changes(store: Engine) -> None:
    code, _, err = signoff("user", "disable", "bob", "--as", "admin", "--password-stdin", stdin="")
    assert code == 2 and "Nothing on stdin: give admin's password" in err
    reviewer = get_reviewer(store, "bob")
    assert reviewer is not None and reviewer.active


def test_a_new_account_takes_the_admins_password_then_its_own(store: Engine) -> None:
    code, _, err = signoff(
        "user", "add", "erin", "--tenant", "demo", "--as", "admin", "--password-stdin",
        stdin=ADMIN_LINE + "erins long password\n",
    )  # fmt: skip
    assert code == 0, err
    erin = get_reviewer(store, "erin")
    assert erin is not None and verify_password("erins long password", erin.password_hash)
    code, _, err = signoff(
        "user", "passwd", "erin", "--as", "admin", "--password-stdin",
        stdin=ADMIN_LINE + "another long password\n",
    )  # fmt: skip
    assert code == 0, err
    erin = get_reviewer(store, "erin")
    assert erin is not None and verify_password("another long password", erin.password_hash)
