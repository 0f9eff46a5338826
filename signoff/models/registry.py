"""Model providers are a registry: an installed package declares one under the entry-point
group `signoff.models`, and every part of signoff that asks about a provider asks here.

    # pyproject.toml of your package
    [project.entry-points."signoff.models"]
    acme = "acme_signoff.provider:ACME"

    # acme_signoff/provider.py
    from signoff.models import ModelProvider
    ACME = ModelProvider(name="acme", adapter="acme_signoff.adapter:build", ...)

What a provider declares is everything the rest of the code needs of it: its name (the
part of `--model PROVIDER:MODEL_ID` before the first ':'), how a model id is checked and
defaulted, its settings and which of them are secrets (the logs blank them), its
telemetry system name, whether evals may use it, its price when the price table says
nothing, and the adapter the worker builds on its first turn (`adapter`, named as
`module:function`, so that its SDK loads only in the worker and only when used). The
adapter maps its own errors: it raises `ApplicationError` with a `Model*` type,
non-retryable when a retry cannot help (activities/models/api_errors.py does it for
SDKs shaped like Anthropic's and OpenAI's).

The built-in providers (anthropic, openai, scripted) register the same way, through
signoff's own pyproject.toml. The workflow never asks the registry: a run's `ModelRef`
holds the provider as a name, checked here at the edge (settings, profiles, evals)
before a run starts.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from functools import cache
from typing import Any, Literal

from pydantic import SecretStr
from pydantic_settings import BaseSettings

from signoff.entry_points import RegistrationError, load_group, reference_problem
from workflows.model_contracts import PROVIDER_NAME_PATTERN

ENTRY_POINT_GROUP = "signoff.models"
# `auto` is not a provider: it picks one (`auto_rank`), so no provider may take its name.
AUTO = "auto"
# A provider's name is the prefix of `--model PROVIDER:MODEL_ID`: no ':' in it.
PROVIDER_NAME = re.compile(PROVIDER_NAME_PATTERN)


# An entry point of `signoff.models` that cannot be used; the message says which.
ProviderRegistrationError = RegistrationError


class ModelChoiceError(ValueError):
    """A --model or SIGNOFF_MODEL value we cannot understand."""


def _no_settings_secrets(settings: Any) -> Iterable[SecretStr | None]:
    return ()


def _no_default(settings: Any) -> str | None:
    return None


def _no_thinking(settings: Any) -> int | None:
    return None


def _any_id(model_id: str | None) -> str | None:
    return None


@dataclass(frozen=True)
class ModelProvider:
    """One model provider, as declared under the `signoff.models` entry points."""

    name: str
    # `module:function`: function(settings) returns a ModelAdapter (activities/models/
    # base.py). Imported by the worker on the first turn that names the provider.
    adapter: str
    # How `--model` names it, for help and errors: `acme:MODEL_ID`.
    usage: str
    # A problem with the model id given after ':' (None when none was given), or None.
    id_problem: Callable[[str | None], str | None] = _any_id
    # The id used when none is given (signoff's Settings in); None: one must be given.
    default_id: Callable[[Any], str | None] = _no_default
    # The provider's own settings, read from the environment with their own prefix
    # (e.g. SIGNOFF_ACME_); every SecretStr field is a secret the logs blank.
    settings: type[BaseSettings] | None = None
    # The secrets it keeps in signoff's Settings (the built-in providers' keys).
    settings_secrets: Callable[[Any], Iterable[SecretStr | None]] = _no_settings_secrets
    # `gen_ai.provider.name` in traces (the GenAI conventions' name); None: `name`.
    telemetry_name: str | None = None
    # May an eval scenario name it (`run.model` of docs/operating/evals.md)?
    evals: bool = True
    # What a model the price table does not list costs: `free` (a local or scripted
    # model) or `unknown` (no cost budget can be kept for it).
    unlisted_price: Literal["free", "unknown"] = "unknown"
    # `auto` picks the ready provider of highest rank; None: never picked by `auto`.
    auto_rank: int | None = None
    auto_ready: Callable[[Any], bool] = lambda settings: True
    # A triage on this provider's default model classifies with this model id instead
    # (the scripted provider's triage script); None: with the agent's model.
    triage_model_id: str | None = None
    # Extended thinking's token budget for agent runs, from the settings; None: none.
    thinking_budget: Callable[[Any], int | None] = _no_thinking

    @property
    def system_name(self) -> str:
        return self.telemetry_name or self.name

    def own_settings(self) -> BaseSettings | None:
        """Its settings read from the environment now, or None when it declares none."""
        return None if self.settings is None else self.settings()

    def secrets(self, settings: Any) -> list[str]:
        """Every secret value of this provider that is set: to be blanked from logs."""
        held = list(self.settings_secrets(settings))
        own = self.own_settings()
        if own is not None:
            held += [value for value in vars(own).values() if isinstance(value, SecretStr)]
        return [secret.get_secret_value() for secret in held if secret is not None]


def known_providers() -> Mapping[str, ModelProvider]:
    """Every model provider installed, by name: the built-in ones and those of packages."""
    return _loaded()


def provider_named(name: str) -> ModelProvider:
    """The provider `name`, or ModelChoiceError saying which providers there are."""
    provider = known_providers().get(name)
    if provider is None:
        raise ModelChoiceError(
            f"Unknown model provider '{name}'. This installation has: {choices()} "
            f"(a package adds one under the '{ENTRY_POINT_GROUP}' entry points)."
        )
    return provider


def choices() -> str:
    """How `--model` may be written here: 'auto' and each provider's usage."""
    return ", ".join([AUTO, *(provider.usage for provider in known_providers().values())])


def reload_providers() -> None:
    """Read the entry points again (after a package was installed in this process)."""
    _loaded.cache_clear()


@cache
def _loaded() -> Mapping[str, ModelProvider]:
    return load_group(ENTRY_POINT_GROUP, ModelProvider, lambda provider: provider.name, _problem)


def _problem(name: str, provider: ModelProvider) -> str | None:
    if name == AUTO or not PROVIDER_NAME.match(name):
        return f"a provider's name is lower-case letters, digits and '_', and not '{AUTO}'"
    return reference_problem(provider.adapter)
