"""Amounts typed the way the page's language writes them (approvals_ui/amount_input.py):
Babel's parsing with the page's locale, strict where a group separator could pass for
the decimal one."""

from __future__ import annotations

from decimal import Decimal

import pytest

from approvals_ui.amount_input import NotAnAmount, amount_for_the_run, typed_amount

NARROW_NO_BREAK_SPACE = "\u202f"  # what Babel writes between French thousands
NO_BREAK_SPACE = "\u00a0"


@pytest.mark.parametrize(
    ("language", "typed", "amount"),
    [
        ("fr", "20,00", Decimal("20.00")),
        ("fr", "20.00", Decimal("20.00")),  # a point is no group separator in French
        ("fr", " 20,5 ", Decimal("20.50")),
        ("fr", "1 234,50", Decimal("1234.50")),  # the space a keyboard types
        ("fr", f"1{NO_BREAK_SPACE}234,50", Decimal("1234.50")),
        ("fr", f"1{NARROW_NO_BREAK_SPACE}234,50", Decimal("1234.50")),
        ("en", "20.00", Decimal("20.00")),
        ("en", "1,234.50", Decimal("1234.50")),
        ("en", "45", Decimal("45.00")),
    ],
)
def test_an_amount_is_read_as_the_page_language_writes_it(
    language: str, typed: str, amount: Decimal
) -> None:
    assert typed_amount(typed, language) == amount


def test_the_run_gets_the_amount_as_it_reads_amounts() -> None:
    assert amount_for_the_run("20,00", "fr") == "20.00"
    assert amount_for_the_run("1 234,5", "fr") == "1234.50"


@pytest.mark.parametrize(
    ("language", "typed"),
    [
        ("en", "20,00"),  # on an English page a comma groups thousands: never 2000
        ("en", "1 234.50"),
        ("fr", "1.234,50"),
        ("fr", "vingt"),
        ("fr", ""),
        ("en", "NaN"),
        ("en", "Infinity"),
        ("fr", "20,00 EUR"),
    ],
)
def test_what_is_not_an_amount_there_is_refused(language: str, typed: str) -> None:
    with pytest.raises(NotAnAmount):
        typed_amount(typed, language)


@pytest.mark.parametrize(("language", "typed"), [("fr", "1,234"), ("en", "10.005")])
def test_an_amount_finer_than_a_cent_is_refused(language: str, typed: str) -> None:
    with pytest.raises(NotAnAmount) as refused:
        typed_amount(typed, language)
    assert (
        refused.value.wording.template == "'%(typed)s' is not an amount with at most two decimals."
    )
