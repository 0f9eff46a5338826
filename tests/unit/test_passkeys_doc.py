"""docs/passkeys.md says what works: its profile snippet is a valid tool policy with the
threshold it names, its environment line is a setting signoff reads, the CLI's refusal
it quotes is the service's own words, and its settings table holds where a passkey
registers: the address `make demo` tells a reader to open (localhost, never 127.0.0.1,
which a browser refuses as a relying party). tests/ui/test_browser_passkey.py registers
and approves with one at http://localhost."""

from __future__ import annotations

import re
import shlex
import tomllib
from decimal import Decimal
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from signoff.config.settings import Settings
from signoff.service.passkey_step_up import NEEDS_PASSKEY
from signoff.wiring.dev import next_steps
from workflows.tool_policy import ToolPolicy

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "passkeys.md"
SETTING_ROW = re.compile(r"^\| `(SIGNOFF_PASSKEY_\w+)` \| `([^`]*)` \|", re.M)


def blocks(language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", PAGE.read_text(), re.S)


def test_the_profile_snippet_is_a_policy_with_its_threshold() -> None:
    (snippet,) = blocks("toml")
    document = tomllib.loads(snippet)
    policy = ToolPolicy.model_validate(document["agents"]["support"]["tool_policy"]["refund"])
    assert policy.passkey_above == Decimal("500.00")


def test_the_environment_line_is_read_as_the_tenants_amounts(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    (line,) = blocks("bash")
    _, assignment = shlex.split(line.strip())
    name, _, value = assignment.partition("=")
    monkeypatch.setenv(name, value)
    assert Settings().passkey_above == {"acme": Decimal("500.00"), "demo": Decimal("50.00")}


def test_the_quoted_cli_refusal_is_the_services() -> None:
    (text,) = blocks("text")
    assert text.strip() == f"error: {NEEDS_PASSKEY}"


def test_the_demo_is_opened_where_the_tables_defaults_register_a_passkey(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for name in (
        "SIGNOFF_PASSKEY_RP_ID",
        "SIGNOFF_PASSKEY_ORIGINS",
        "SIGNOFF_UI_HOST",
        "SIGNOFF_UI_PORT",
    ):
        monkeypatch.delenv(name, raising=False)
    settings = Settings()
    table = dict(SETTING_ROW.findall(PAGE.read_text()))
    assert table["SIGNOFF_PASSKEY_RP_ID"] == settings.passkey_rp_id
    assert table["SIGNOFF_PASSKEY_ORIGINS"] == settings.passkey_origins

    said = re.search(r"Reviewer UI on (http://[^/\s]+)/", next_steps(settings))
    assert said is not None
    opened = said[1]  # what `make demo` prints, and the README says to open
    assert opened in settings.passkey_origin_list
    assert urlsplit(opened).hostname == settings.passkey_rp_id == "localhost"
    assert f"Open {opened}/" in (ROOT / "README.md").read_text()
