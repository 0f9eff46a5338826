"""Amounts as a reviewer types them, read the way the page's language writes them.

A French page writes `1 234,50 EUR`, so a French reviewer types `20,00`: Babel's number
parsing reads it with the page's locale (its decimal and group separators, from CLDR),
and the run gets the amount as it reads amounts, `20.00`. `20.00` is read on a French
page too: a point is no group separator there. Where the group separator is a comma or
a point (English: `1,234.50`), parsing is strict, so that `20,00` typed on an English
page is refused instead of read as 2000; where it is a space (French), a plain space, a
no-break space or a narrow one all stand for it (Babel's lenient parsing), which strict
parsing would refuse, and a space is never mistaken for a decimal separator.
"""

from __future__ import annotations

from decimal import Decimal

from babel.numbers import NumberFormatError, get_group_symbol, parse_decimal

from approvals_ui.babel_locale import locale_of
from workflows.action_edits import not_an_amount, not_to_the_cent
from workflows.wording import CENTS, Wording


class NotAnAmount(Exception):
    """What the reviewer typed is not an amount; `wording` says why, for the page."""

    def __init__(self, wording: Wording) -> None:
        super().__init__(wording.english())
        self.wording = wording


def typed_amount(text: str, language: str) -> Decimal:
    """The amount `text` says in `language`, to the cent; NotAnAmount when it says none."""
    locale = locale_of(language)
    strict = not get_group_symbol(locale).isspace()
    try:
        amount = parse_decimal(text.strip(), locale=locale, strict=strict)
    except NumberFormatError:
        raise NotAnAmount(not_an_amount(text)) from None
    if not amount.is_finite() or amount != amount.quantize(CENTS):
        raise NotAnAmount(not_to_the_cent(text))
    return amount.quantize(CENTS)


def amount_for_the_run(text: str, language: str) -> str:
    """`20,00` typed on a French page, as the run reads an amount: `20.00`."""
    return str(typed_amount(text, language))
