"""Exposures as the engine sets them, for tests that build actions by hand: a refund's
as its hooks declare it (`workflows/refund_hooks.py`), a team's tool's as its profile
policy does (`workflows/exposure.py`)."""

from __future__ import annotations

from decimal import Decimal

from workflows.approval_policy import CENTS
from workflows.exposure import ActionExposure


def refund_exposure(amount: str, order_id: str, currency: str = "EUR") -> ActionExposure:
    """The refund's: its `amount` argument, on its order, in the order's currency."""
    return ActionExposure(
        amount=str(Decimal(amount).quantize(CENTS)),
        currency=currency,
        order_id=order_id,
        amount_argument="amount",
    )


def voucher_exposure(amount: str = "15.00") -> ActionExposure:
    """The team's `issue_voucher` (tests/tools/team_profile.toml): `value`, in EUR."""
    return ActionExposure(amount=amount, currency="EUR", amount_argument="value")
