"""The model providers' registry: what it refuses from an installed package, and how
`--model` is read through it (signoff/models/registry.py)."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from pydantic import SecretStr

from signoff.config.settings import ModelChoiceError, Settings, parse_model
from signoff.config.telemetry import GEN_AI_PROVIDER_NAMES
from signoff.models.registry import (
    ProviderRegistrationError,
    known_providers,
    reload_providers,
)
from workflows.contracts import ModelPrice, ModelRef

PLUGIN = """
from signoff.models import ModelProvider

GOOD = ModelProvider(name="good", adapter="plugin_models:build", usage="good:MODEL_ID")
NOT_A_PROVIDER = object()
AUTO = ModelProvider(name="auto", adapter="plugin_models:build", usage="auto")
"""


@pytest.fixture
def install(tmp_path: Path) -> Iterator[object]:
    """Install a package whose entry points are the lines given, as pip would."""

    def installed(*lines: str) -> None:
        (tmp_path / "plugin_models.py").write_text(PLUGIN)
        info = tmp_path / "plugin_models-1.0.dist-info"
        info.mkdir(exist_ok=True)
        (info / "METADATA").write_text("Metadata-Version: 2.1\nName: plugin-models\nVersion: 1.0\n")
        (info / "entry_points.txt").write_text("[signoff.models]\n" + "\n".join(lines) + "\n")
        sys.path.insert(0, str(tmp_path))
        importlib.invalidate_caches()
        reload_providers()

    yield installed
    if str(tmp_path) in sys.path:
        sys.path.remove(str(tmp_path))
    sys.modules.pop("plugin_models", None)
    importlib.invalidate_caches()
    reload_providers()


def test_a_declared_provider_without_a_telemetry_name_is_named_as_itself(install) -> None:
    install("good = plugin_models:GOOD")
    assert known_providers()["good"].system_name == "good"
    assert GEN_AI_PROVIDER_NAMES["good"] == "good"  # no KeyError on its first turn


@pytest.mark.parametrize(
    ("line", "problem"),
    [
        (
            "good = plugin_models:NOT_A_PROVIDER",
            "it is not a signoff.models.registry.ModelProvider",
        ),
        ("other = plugin_models:GOOD", "it is named 'good'; name the entry point"),
        ("auto = plugin_models:AUTO", "and not 'auto'"),
        ("good = plugin_models:MISSING", "cannot load it"),
        ("scripted = signoff.models.scripted_provider:SCRIPTED", "registered twice"),
    ],
)
def test_an_entry_point_that_cannot_be_used_is_refused_by_name(
    install, line: str, problem: str
) -> None:
    install(line)
    with pytest.raises(ProviderRegistrationError, match=problem) as raised:
        known_providers()
    assert line.split(" = ")[0] in str(raised.value)  # names the entry point


def test_auto_is_claude_with_a_key_and_the_scripted_demo_without(tmp_path: Path) -> None:
    keyed = Settings(home=tmp_path, anthropic_api_key=SecretStr("sk-test"))
    assert parse_model("auto", keyed) == ModelRef(
        provider="anthropic", model_id=keyed.anthropic_model
    )
    bare = Settings(home=tmp_path, anthropic_api_key=None)
    assert parse_model("auto", bare) == ModelRef(provider="scripted", model_id="demo")


def test_each_provider_checks_and_defaults_its_own_ids(tmp_path: Path) -> None:
    settings = Settings(home=tmp_path, anthropic_api_key=None)
    assert parse_model("scripted", settings).model_id == "demo"
    assert parse_model("anthropic", settings).model_id == settings.anthropic_model
    with pytest.raises(ModelChoiceError, match="not a script name"):
        parse_model("scripted:../etc/passwd", settings)
    with pytest.raises(ModelChoiceError, match="Unknown model 'gpt-9'. Use auto, anthropic"):
        parse_model("gpt-9", settings)


def test_the_price_of_an_unlisted_model_is_what_its_provider_declares(tmp_path: Path) -> None:
    settings = Settings(home=tmp_path)
    assert settings.price_of(ModelRef(provider="openai", model_id="qwen3:4b")) == ModelPrice()
    assert settings.price_of(ModelRef(provider="scripted", model_id="demo")) == ModelPrice()
    assert settings.price_of(ModelRef(provider="anthropic", model_id="claude-unknown")) is None
