"""Model providers, as a registry: declare one with `ModelProvider` under the entry-point
group `signoff.models` (docs/configuration/models.md, "Add a model provider")."""

from signoff.models.registry import (
    ENTRY_POINT_GROUP,
    ModelChoiceError,
    ModelProvider,
    ProviderRegistrationError,
    known_providers,
    provider_named,
)

__all__ = [
    "ENTRY_POINT_GROUP",
    "ModelChoiceError",
    "ModelProvider",
    "ProviderRegistrationError",
    "known_providers",
    "provider_named",
]
