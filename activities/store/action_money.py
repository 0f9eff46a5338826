"""The money an action's store rows carry: an amount and a currency, or none.

Design note. A store write that raises on its input raises on every retry: a hold or an
audit row that parsed any argument named `amount` as money stuck a run in `retrying`
(an MCP tool's arguments are JSON text, so its `"15.00"` arrives with its quotes). So
no argument is read here: an action's amount is its `exposure`, which its tool's policy
declares and the gate reads once (`workflows/exposure.py`); an action without one has no
amount, whatever its arguments are called. A value that is not money in the columns'
terms (a finite number with at most two decimals, within the column's integer) is
stored as no amount, never as an error. The action itself, whole, stays on the row and
the trail.
"""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation

from activities.store.schema import MINOR_UNITS
from workflows.actions import PendingAction

# The columns are SQL INTEGER: PostgreSQL's holds 32 bits, and a larger value fails
# the insert on every attempt.
LARGEST_MINOR = 2**31 - 1
CURRENCY_CODE = re.compile(r"[A-Z]{3}")


def minor_or_none(text: str | None) -> int | None:
    """`text` in minor units, or None when it is not money the columns can hold."""
    if text is None:
        return None
    try:
        amount = Decimal(text)
    except (InvalidOperation, ValueError, TypeError):
        return None
    if not amount.is_finite():
        return None
    minor = amount / MINOR_UNITS
    if minor != minor.to_integral_value() or abs(minor) > LARGEST_MINOR:
        return None
    return int(minor)


def currency_or_none(text: str | None) -> str | None:
    """An ISO 4217 code as the columns hold it (three capitals), or None."""
    return text if text is not None and CURRENCY_CODE.fullmatch(text) else None


def action_money(action: PendingAction) -> tuple[int | None, str | None]:
    """The amount (minor units) and currency the action's exposure puts at stake;
    (None, None) for an action without one, whatever its arguments say."""
    exposure = action.exposure
    if exposure is None:
        return None, None
    amount = minor_or_none(exposure.amount)
    return amount, None if amount is None else currency_or_none(exposure.currency)
