"""Amounts as reviewers read them: the page language's digits and separators, and the
currency's ISO code after them (`1,234.50 EUR`, `1 234,50 EUR`).

The code, not a symbol: `$` is several currencies, and a reviewer approves an exact
amount in an exact currency. Every amount in signoff has two decimals (minor units of
a hundredth, `workflows.approval_policy.money`).
"""

from __future__ import annotations

from decimal import Decimal

from babel.numbers import format_decimal

from approvals_ui.babel_locale import locale_of
from workflows.approval_policy import CENTS

# The language gives the separators; the code follows the number after a space, which
# is Babel's currency pattern `#,##0.00 ¤¤` without the currency lookups it makes.
NUMBER = "#,##0.00"


def amount_text(amount: Decimal | str | int, currency: str | None, language: str) -> str:
    """`89.90 EUR` (en), `89,90 EUR` (fr); without a currency, the number alone."""
    value = Decimal(str(amount)).quantize(CENTS)
    number = format_decimal(value, format=NUMBER, locale=locale_of(language))
    return f"{number} {currency}" if currency else number


def minor_text(minor: int, currency: str | None, language: str) -> str:
    """An amount in minor units (hundredths), as `amount_text` writes it."""
    return amount_text(Decimal(minor) / 100, currency, language)


COST_PATTERN = "#,##0.000000"  # a model's cost, in dollars to the millionth (pricing.py)


def cost_text(cost: Decimal | str, language: str) -> str:
    """A model's cost in the page language's digits: `0.001234` (en), `0,001234` (fr)."""
    return format_decimal(Decimal(str(cost)), format=COST_PATTERN, locale=locale_of(language))
