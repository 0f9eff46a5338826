"""A model provider from a package outside signoff: installed, it is a model like the
built-in ones, with no edit of signoff's modules (issue 43, "every seam is a registry").

The package (tests/outside_packages) is put on `sys.path` with its `.dist-info`, as
`pip install` would put it in `site-packages`; its entry point under `signoff.models` is
all that tells signoff of it. Every place that asks about a provider is asked here:
`--model` parsing, the worker's adapter, the log redaction of its secret, its telemetry
name, its price, evals and the profile loader.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import Engine
from temporalio.testing import WorkflowEnvironment

from activities.model_turn import build_model_turns
from activities.tool_gateway import ToolGateway
from signoff.config.logs import settings_secrets
from signoff.config.profiles import BUILTIN_PROFILES, ProfileError, load_profile_file
from signoff.config.settings import ModelChoiceError, Settings, parse_model
from signoff.config.telemetry import GEN_AI_PROVIDER_NAMES
from signoff.service.evals.runner import model_ref
from tests.outside_install import outside_package_installed, uninstall
from tests.workflow.fakes import run_to_end
from workflows.contracts import ModelPrice, ModelRef

ACME_KEY = "sk-acme-test-7f3e"


@pytest.fixture
def acme_installed(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv("SIGNOFF_ACME_API_KEY", ACME_KEY)
    with outside_package_installed():
        yield


def test_without_the_package_its_provider_is_refused_saying_what_is_installed(
    tmp_path: Path,
) -> None:
    uninstall()
    with pytest.raises(ModelChoiceError, match="Unknown model 'acme'. Use auto, anthropic"):
        parse_model("acme", Settings(home=tmp_path))


async def test_a_run_goes_through_a_provider_installed_from_outside(
    acme_installed: None,
    time_skipping_env: WorkflowEnvironment,
    seeded_engine: Engine,
    tmp_path: Path,
) -> None:
    settings = Settings(home=tmp_path)
    model = parse_model("acme", settings)
    assert model == ModelRef(provider="acme", model_id="acme-small")  # its own default
    assert parse_model("acme:acme-large", settings).model_id == "acme-large"

    outcome = await run_to_end(
        time_skipping_env,
        build_model_turns(settings),
        ToolGateway(seeded_engine),
        ticket_id="T-4512",
        model=model,
    )

    assert (outcome.status, outcome.reason) == ("completed", "answered")
    assert [record.name for record in outcome.tool_calls] == ["read_ticket"]
    assert outcome.final_text is not None
    # Built by the package from its own setting, in the worker; the ticket was read.
    assert outcome.final_text.startswith("acme (acme-small, key 7f3e) read: ")
    assert "T-4512" in outcome.final_text
    assert outcome.model == model and not outcome.scripted


def test_what_the_provider_declares_is_what_signoff_uses(
    acme_installed: None, tmp_path: Path
) -> None:
    settings = Settings(home=tmp_path)
    model = parse_model("acme", settings)
    assert ACME_KEY in settings_secrets(settings)  # its secret is blanked from logs
    assert GEN_AI_PROVIDER_NAMES["acme"] == "acme.ai"
    assert settings.price_of(model) == ModelPrice()  # declared free when unlisted
    assert model_ref("acme:acme-small") == model  # evals may use it


def test_a_profile_may_name_it_and_not_a_provider_that_is_not_installed(
    acme_installed: None, tmp_path: Path
) -> None:
    path = tmp_path / "profiles.toml"
    builtin = BUILTIN_PROFILES.read_text()
    assert 'provider = "auto"' in builtin
    path.write_text(builtin.replace('provider = "auto"', 'provider = "acme"'))
    loaded = load_profile_file(path)
    assert loaded.profiles.agents["support"].model.provider == "acme"

    path.write_text(builtin.replace('provider = "auto"', 'provider = "acmee"'))
    with pytest.raises(ProfileError, match="no model provider 'acmee'; allowed: auto, acme"):
        load_profile_file(path)
