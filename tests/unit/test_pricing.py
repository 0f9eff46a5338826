"""Pricing: exact Decimal arithmetic per kind of token, and the settings' table."""

from __future__ import annotations

from decimal import Decimal

from signoff.config.settings import Settings
from workflows.contracts import ModelPrice, ModelRef, Usage


def test_each_kind_of_token_has_its_price() -> None:
    price = ModelPrice(
        input=Decimal("3"),
        output=Decimal("15"),
        cache_write=Decimal("3.75"),
        cache_read=Decimal("0.3"),
    )
    usage = Usage(
        input_tokens=1000,
        output_tokens=200,
        cache_creation_input_tokens=4000,
        cache_read_input_tokens=10000,
    )
    # (1000×3 + 200×15 + 4000×3.75 + 10000×0.3) / 1e6
    assert price.cost(usage) == Decimal("0.024")


def test_prices_come_from_the_settings_table(tmp_path) -> None:  # type: ignore[no-untyped-def]
    settings = Settings(home=tmp_path)
    assert settings.price_of(ModelRef(provider="scripted", model_id="demo")) == ModelPrice()
    sonnet = settings.price_of(ModelRef(provider="anthropic", model_id="claude-sonnet-4-5"))
    assert sonnet is not None and sonnet.output == Decimal("15")
    assert settings.price_of(ModelRef(provider="anthropic", model_id="unknown")) is None


def test_the_price_table_is_read_from_the_environment(tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("SIGNOFF_MODEL_PRICES", '{"my-model": {"input": "2", "output": "8"}}')
    settings = Settings(home=tmp_path)
    price = settings.price_of(ModelRef(provider="anthropic", model_id="my-model"))
    assert price == ModelPrice(input=Decimal("2"), output=Decimal("8"))
