"""The model a run names, the tokens it used and what they cost: the contracts that the
settings name (SIGNOFF_MODEL, SIGNOFF_MODEL_PRICES), apart from the run's own.

Every command loads its settings, and `signoff approve` needs no other contract of a
run: kept here, its settings do not load the profiles, tools and MCP contracts that
`workflows.contracts` does. `workflows.contracts` re-exports them: import them from there.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Annotated

from pydantic import Field

from workflows.contract_base import Contract
from workflows.wire_contract import WireContract

# A provider's name as the registry (signoff/models) allows it: no ':' in it.
PROVIDER_NAME_PATTERN = r"^[a-z][a-z0-9_]{0,39}$"
# The one provider the core knows by name: a run's outcome says its replies came from a
# script, not from an AI model. Its declaration (signoff/models/scripted_provider.py)
# takes its name from here.
SCRIPTED_PROVIDER = "scripted"


class ModelRef(Contract):
    """Which model answers: a provider of the registry (signoff/models) and its model id.

    The provider is a name, not a fixed list: the registry checks it where a run is
    started (settings, profiles, evals), and the workflow only carries it. A worker
    without that provider fails the turn, saying so.
    """

    provider: Annotated[str, Field(pattern=PROVIDER_NAME_PATTERN)]
    model_id: Annotated[str, Field(min_length=1, max_length=200)]

    def label(self) -> str:
        return f"{self.provider}:{self.model_id}"

    @property
    def scripted(self) -> bool:
        return self.provider == SCRIPTED_PROVIDER


class ModelPrice(Contract):
    """US dollars per million tokens, by kind of token; from the settings' price table."""

    input: Decimal = Decimal(0)
    output: Decimal = Decimal(0)
    cache_write: Decimal = Decimal(0)
    cache_read: Decimal = Decimal(0)

    def cost(self, usage: Usage) -> Decimal:
        per_token = (
            self.input * usage.input_tokens
            + self.output * usage.output_tokens
            + self.cache_write * usage.cache_creation_input_tokens
            + self.cache_read * usage.cache_read_input_tokens
        )
        return per_token / MILLION


MILLION = Decimal(1_000_000)


class Usage(WireContract):
    # No cache tokens is the common case (a model or a turn without prompt caching).
    WIRE_OMITS = ("cache_creation_input_tokens", "cache_read_input_tokens")

    input_tokens: int = 0
    output_tokens: int = 0
    cache_creation_input_tokens: int = 0
    cache_read_input_tokens: int = 0

    @property
    def total(self) -> int:
        return self.input_tokens + self.output_tokens

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            input_tokens=self.input_tokens + other.input_tokens,
            output_tokens=self.output_tokens + other.output_tokens,
            cache_creation_input_tokens=self.cache_creation_input_tokens
            + other.cache_creation_input_tokens,
            cache_read_input_tokens=self.cache_read_input_tokens + other.cache_read_input_tokens,
        )
