"""Every setting a process reads is documented: each field of `Settings` appears in the
docs under its environment variable (or one of its aliases), so a new setting cannot
ship unexplained."""

from __future__ import annotations

from pathlib import Path

from pydantic import AliasChoices

from signoff.config.settings import Settings

DOCS = Path(__file__).resolve().parents[2] / "docs"


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
