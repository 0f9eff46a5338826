"""Amounts as reviewers read them: the page language's digits and separators, and the
currency's ISO code after them (`1,234.50 EUR`, `1 234,50 EUR`).

The code, not a symbol: `$` is several currencies, and a reviewer approves an exact
amount in an exact currency. Every amount in signoff has two decimals (minor units of
a hundredth, `workflows.approval_policy.money`).
"""

from __future__ import annotations

from decimal import Decimal

from babel.numbers import format_currency, format_decimal

from workflows.approval_policy import CENTS

PATTERN = "#,##0.00 ¤¤"  # the language gives the separators, the pattern the code's place


def amount_text(amount: Decimal | str | int, currency: str | None, language: str) -> str:
    """`89.90 EUR` (en), `89,90 EUR` (fr); without a currency, the number alone."""
    value = Decimal(str(amount)).quantize(CENTS)
    if not currency:
        return format_decimal(value, format="#,##0.00", locale=language)
    return format_currency(value, currency, format=PATTERN, locale=language, currency_digits=False)


def minor_text(minor: int, currency: str | None, language: str) -> str:
    """An amount in minor units (hundredths), as `amount_text` writes it."""
    return amount_text(Decimal(minor) / 100, currency, language)


COST_PATTERN = "#,##0.000000"  # a model's cost, in dollars to the millionth (pricing.py)


def cost_text(cost: Decimal | str, language: str) -> str:
    """A model's cost in the page language's digits: `0.001234` (en), `0,001234` (fr)."""
    return format_decimal(Decimal(str(cost)), format=COST_PATTERN, locale=language)
