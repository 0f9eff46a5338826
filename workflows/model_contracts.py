"""The model a run names, the tokens it used and what they cost: the contracts that the
settings name (SIGNOFF_MODEL, SIGNOFF_MODEL_PRICES), apart from the run's own.

Every command loads its settings, and `signoff approve` needs no other contract of a
run: kept here, its settings do not load the profiles, tools and MCP contracts that
`workflows.contracts` does. `workflows.contracts` re-exports them: import them from there.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Annotated, Literal

from pydantic import Field

from workflows.contract_base import Contract
from workflows.wire_contract import WireContract


class ModelRef(Contract):
    """Which model answers: `scripted` (a script name), `anthropic` or `openai` (a model id).

    `openai` is any server that speaks the Chat Completions API (Ollama, vLLM, llama.cpp,
    OpenAI); its model ids may hold ':' (`qwen3:4b`).
    """

    provider: Literal["scripted", "anthropic", "openai"]
    model_id: Annotated[str, Field(min_length=1, max_length=200)]

    def label(self) -> str:
        return f"{self.provider}:{self.model_id}"

    @property
    def scripted(self) -> bool:
        return self.provider == "scripted"


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
