"""docs/passkeys.md says what works: its profile snippet is a valid tool policy with the
threshold it names, its environment line is a setting signoff reads, and the CLI's
refusal it quotes is the service's own words."""

from __future__ import annotations

import re
import shlex
import tomllib
from decimal import Decimal
from pathlib import Path

import pytest

from signoff.config.settings import Settings
from signoff.service.passkey_step_up import NEEDS_PASSKEY
from workflows.tool_policy import ToolPolicy

PAGE = Path(__file__).resolve().parents[2] / "docs" / "passkeys.md"


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
