"""Every setting a process reads is documented: each field of `Settings` appears in the
docs under its environment variable (or one of its aliases), so a new setting cannot
ship unexplained; and the docs name no `SIGNOFF_` variable that is no longer read."""

from __future__ import annotations

import re
from pathlib import Path

from pydantic import AliasChoices

from signoff.config.settings import Settings

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
VARIABLE = re.compile(r"SIGNOFF_[A-Z0-9_]*[A-Z0-9]")
# Named in the docs, yet not settings of `Settings`, each for its reason.
NOT_SETTINGS = {
    "SIGNOFF_APP_PASSWORD": "temporal-dev.yml's own variable, for the runtime role",
    "SIGNOFF_OWNER_PASSWORD": "temporal-dev.yml's own variable, for the owner role",
    "SIGNOFF_CHAOS_KILL_AT": "bench/chaos/worker.py's kill hook",
    "SIGNOFF_CHAOS_KILL_AFTER": "bench/chaos/worker.py's kill hook",
    "SIGNOFF_DOCS_IMAGES": "the browser tests' switch that writes docs/images (make docs-images)",
    "SIGNOFF_UI_INBOX_CACHE_SECONDS": "a setting removed, named by a design note's history",
}


def variables(name: str) -> set[str]:
    """The environment variables that set the field `name`."""
    field = Settings.model_fields[name]
    names = {f"{Settings.model_config.get('env_prefix', '')}{name}".upper()}
    alias = field.validation_alias
    if isinstance(alias, AliasChoices):
        names |= {choice for choice in alias.choices if isinstance(choice, str)}
    elif isinstance(alias, str):
        names.add(alias)
    return names


def docs_text() -> str:
    return "".join(page.read_text() for page in DOCS.rglob("*.md"))


def undocumented(text: str) -> list[str]:
    """The fields of `Settings` none of whose variables `text` names (in backticks)."""
    return sorted(
        name
        for name in Settings.model_fields
        if not any(f"`{variable}`" in text for variable in variables(name))
    )


def test_every_setting_is_documented() -> None:
    missing = undocumented(docs_text())
    assert missing == [], "document these in docs/ (configuration/settings.md or its topic)"


def test_a_setting_the_docs_leave_out_is_caught() -> None:
    text = docs_text().replace("`SIGNOFF_HOME`", "").replace("`SIGNOFF_OTLP_ENDPOINT`", "")
    # An alias still counts: OTEL_EXPORTER_OTLP_ENDPOINT documents otlp_endpoint.
    assert undocumented(text) == ["home"]


def every_variable() -> set[str]:
    return set().union(*(variables(name) for name in Settings.model_fields))


def test_the_docs_name_no_variable_that_is_not_read() -> None:
    named = set(VARIABLE.findall(docs_text() + (ROOT / "README.md").read_text()))
    assert sorted(named - every_variable() - NOT_SETTINGS.keys()) == []
