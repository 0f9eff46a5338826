"""`signoff user language`: an administrator sets or clears the language the reviewer UI
speaks to a reviewer; anyone else is refused, and a language the UI does not speak is
bad input (exit 2) that changes nothing."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest
from sqlalchemy import Engine
from typer.testing import CliRunner

from activities.store import issue_token
from signoff.config.settings import get_settings
from signoff.service.handles import Store
from signoff.service.languages import preferred_language
from signoff.wiring.app import app
from tests.admin import ADMIN, admin_token
from tests.conftest import fresh_demo_store


@pytest.fixture
def store(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, demo_store_template: Path
) -> Iterator[Engine]:
    monkeypatch.setenv("SIGNOFF_HOME", str(tmp_path))
    get_settings.cache_clear()
    engine = fresh_demo_store(demo_store_template, tmp_path / "signoff.db")
    monkeypatch.setenv("SIGNOFF_TOKEN", admin_token(engine))  # what `--as admin` reads
    yield engine
    engine.dispose()
    get_settings.cache_clear()


def signoff(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, ["user", "language", *args])
    return result.exit_code, result.stdout, result.stderr


def test_an_administrator_sets_shows_and_clears_a_language(store: Engine) -> None:
    code, out, _ = signoff("Alice", "FR", "--as", "admin", "--json")
    assert (code, json.loads(out)) == (0, {"reviewer": "alice", "language": "fr"})
    assert preferred_language(Store(store), "alice") == "fr"
    code, out, _ = signoff("alice")
    assert code == 0 and "reviewer alice: language fr" in out
    code, out, _ = signoff("alice", "auto", "--as", "admin")
    assert code == 0 and "follows the browser" in out
    assert preferred_language(Store(store), "alice") is None


def test_a_language_the_ui_does_not_speak_is_bad_input(store: Engine) -> None:
    code, _, err = signoff("alice", "de", "--as", "admin")
    assert code == 2 and "'de' is not a language of the reviewer UI: use one of en, fr" in err
    assert preferred_language(Store(store), "alice") is None


def test_a_reviewer_who_is_not_an_administrator_is_refused(
    store: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    _, _, token = issue_token(store, ADMIN, "bob", timedelta(days=1))
    monkeypatch.setenv("SIGNOFF_TOKEN", token)
    code, _, err = signoff("alice", "fr", "--as", "bob")
    assert code == 2 and "'bob' is not an administrator" in err
    assert preferred_language(Store(store), "alice") is None


def test_an_unknown_reviewer_is_bad_input(store: Engine) -> None:
    code, _, err = signoff("mallory", "fr", "--as", "admin")
    assert code == 2 and "Reviewer 'mallory' does not exist" in err
