"""What each Anthropic model costs by default, for the run's cost budget
(`SIGNOFF_MODEL_PRICES` replaces the table)."""

from __future__ import annotations

from decimal import Decimal

from workflows.model_contracts import ModelPrice

# US dollars per million tokens (cache write: 5-minute cache, 1.25 times input; cache
# read: 0.1 times input). claude-sonnet-4-5 stays priced for runs that still name it:
# the SDK marks it deprecated, end of life on 2026-11-30.
DEFAULT_PRICES = {
    "claude-sonnet-4-6": ModelPrice(
        input=Decimal("3"),
        output=Decimal("15"),
        cache_write=Decimal("3.75"),
        cache_read=Decimal("0.30"),
    ),
    "claude-sonnet-4-5": ModelPrice(
        input=Decimal("3"),
        output=Decimal("15"),
        cache_write=Decimal("3.75"),
        cache_read=Decimal("0.30"),
    ),
    "claude-haiku-4-5": ModelPrice(
        input=Decimal("1"),
        output=Decimal("5"),
        cache_write=Decimal("1.25"),
        cache_read=Decimal("0.10"),
    ),
    "claude-opus-4-1": ModelPrice(
        input=Decimal("15"),
        output=Decimal("75"),
        cache_write=Decimal("18.75"),
        cache_read=Decimal("1.50"),
    ),
}
