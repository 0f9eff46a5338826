"""What an action puts at stake, where its tool's policy says so: one model for every tool.

Design note. No argument name means anything by itself: a team's MCP tool may call an
argument `amount` and hold a count of vouchers in it, or a JSON string. An action has
an **exposure** (an amount of money, its currency, and the order it concerns) only where
its tool's profile policy declares which argument holds the money (`exposure.amount`),
in which currency (a fixed `currency`, or the argument that names it), and which
argument names the order, if any. The refund declares its exposure in code (its
amount, its order's currency and id, `refund_hooks.py`); any other tool in its profile:

    [agents.support.tool_policy.issue_voucher]
    exposure = { amount = "value", currency = "EUR" }

The exposure is part of the action's hash (`approval_policy.action_hash`), so the
amount a reviewer saw, the inbox's row and the audit's row all come from what the
signed decision names. An argument the policy declares as money that is not money
refuses the call at the gate, as a tool error the model reads: nothing waits on a value
nobody can read.

Arguments arrive as text: a Python tool's each as a string, or compact JSON for
anything else (`tool_arguments.py`); an MCP tool's each as JSON (`mcp_tools.py`). Money
may be either: `15.00`, `"15.00"`, `15` or `15.5`. Pure: the workflow and the faces share it.
"""

from __future__ import annotations

import json
import re
from decimal import Decimal, InvalidOperation
from typing import Annotated

from pydantic import Field, model_validator

from workflows.contract_base import Contract
from workflows.profile_values import problem
from workflows.wire_contract import WireContract

CURRENCY_CODE = re.compile(r"^[A-Z]{3}$")
CurrencyCode = Annotated[str, Field(pattern=r"^[A-Z]{3}$")]
ArgumentName = Annotated[str, Field(min_length=1, max_length=64)]
CENTS = Decimal("0.01")
# The largest amount an exposure may state, in major units: far above any refund, far
# below what would overflow the store's integer minor units.
MOST_MONEY = Decimal("1000000000")
# An order id shown on a card and written to the audit (the store's identifier length).
MOST_ORDER_CHARS = 128


class ExposureProblem(Exception):
    """A declared money, currency or order argument the call does not hold readably."""


class ExposureRule(WireContract):
    """Which arguments of a tool hold its exposure (a tool's profile policy)."""

    WIRE_OMITS = ("currency", "currency_argument", "order_argument")

    amount: ArgumentName
    currency: CurrencyCode | None = None
    currency_argument: ArgumentName | None = None
    order_argument: ArgumentName | None = None

    @model_validator(mode="after")
    def _one_currency(self) -> ExposureRule:
        if (self.currency is None) == (self.currency_argument is None):
            raise problem(
                'give the currency (currency = "EUR") or the argument that names it '
                '(currency_argument = "currency"), exactly one'
            )
        return self

    def arguments(self) -> tuple[str, ...]:
        """The arguments it reads, for a check against the tool's schema."""
        named = (self.amount, self.currency_argument, self.order_argument)
        return tuple(name for name in named if name is not None)


class ActionExposure(Contract):
    """An action's money at stake: `amount` as text with two decimals, its currency,
    and the order it concerns (None when the tool names none). `amount_argument` names
    the argument that holds the amount: a reviewer's edit may only lower that one."""

    amount: str
    currency: str
    order_id: str | None = None
    amount_argument: str

    def with_amount(self, amount: str) -> ActionExposure:
        return self.model_copy(update={"amount": amount})

    @property
    def amount_minor(self) -> int:
        return int((Decimal(self.amount) * 100).to_integral_value())

    def said(self) -> str:
        """ "15.00 EUR on order C-1042", for a line of text."""
        money = f"{self.amount} {self.currency}"
        return money if self.order_id is None else f"{money} on order {self.order_id}"


def _value(arguments: dict[str, str], name: str, what: str) -> str:
    text = arguments.get(name)
    if text is None:
        raise ExposureProblem(
            f"The argument '{name}' holds this tool's {what}, and the call does not give it."
        )
    return text


def scalar_text(text: str) -> str:
    """A value's text: a JSON string's content, a JSON number's digits, else the text."""
    try:
        decoded = json.loads(text)
    except ValueError:
        return text
    if isinstance(decoded, str):
        return decoded
    if isinstance(decoded, int | float) and not isinstance(decoded, bool):
        return text
    return text


def money_text(text: str, name: str) -> str:
    """`text` as money with two decimals; ExposureProblem for anything else."""
    shown = scalar_text(text).strip()
    try:
        amount = Decimal(shown)
    except InvalidOperation:
        amount = None
    if (
        amount is None
        or not amount.is_finite()
        or amount != amount.quantize(CENTS)
        or (not Decimal(0) <= amount <= MOST_MONEY)
    ):
        raise ExposureProblem(
            f"The argument '{name}' holds money, and {text[:40]!r} is not an amount: give "
            "a number with at most two decimals, e.g. 15.00."
        )
    return str(amount.quantize(CENTS))


def exposure_of(rule: ExposureRule, arguments: dict[str, str]) -> ActionExposure:
    """The exposure a call's arguments state under `rule`; ExposureProblem otherwise."""
    amount = money_text(_value(arguments, rule.amount, "amount"), rule.amount)
    currency = rule.currency
    if rule.currency_argument is not None:
        given = scalar_text(_value(arguments, rule.currency_argument, "currency")).strip().upper()
        if not CURRENCY_CODE.match(given):
            raise ExposureProblem(
                f"The argument '{rule.currency_argument}' names the currency, and "
                f"{given[:20]!r} is not a currency code: give three letters, e.g. EUR."
            )
        currency = given
    assert currency is not None  # the rule names one or the other
    order_id = None
    if rule.order_argument is not None:
        order_id = scalar_text(_value(arguments, rule.order_argument, "order")).strip()
        if not order_id or len(order_id) > MOST_ORDER_CHARS:
            raise ExposureProblem(
                f"The argument '{rule.order_argument}' names the order: give its id, at "
                f"most {MOST_ORDER_CHARS} characters."
            )
    return ActionExposure(
        amount=amount, currency=currency, order_id=order_id, amount_argument=rule.amount
    )
