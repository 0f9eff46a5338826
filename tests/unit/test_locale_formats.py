"""Amounts, times and time left as a page in each language writes them (Babel), and the
words the browser's countdown goes on with."""

from __future__ import annotations

import json
from datetime import timedelta
from decimal import Decimal

import pytest

from approvals_ui.money_format import amount_text, minor_text
from approvals_ui.time_format import countdown_words, duration_text, time_left_text
from approvals_ui.translations import translations
from tests.clock import clock_now

# French groups digits and joins some units with a narrow no-break space, others with a
# no-break space (CLDR, as Babel has it).
NARROW = "\u202f"
NBSP = "\u00a0"


def test_amounts_take_the_languages_separators_and_the_iso_code() -> None:
    assert amount_text(Decimal("1234.5"), "EUR", "en") == "1,234.50 EUR"
    assert amount_text(Decimal("1234.5"), "EUR", "fr") == f"1{NARROW}234,50 EUR"
    assert minor_text(8990, "EUR", "fr") == "89,90 EUR"
    assert amount_text("60.00", None, "fr") == "60,00"


def test_time_left_is_said_in_the_pages_language() -> None:
    at = clock_now()
    left = at + timedelta(hours=3, minutes=12, seconds=5)
    assert time_left_text(left, at, "en", translations("en")) == "3 hr 12 min left"
    assert time_left_text(left, at, "fr", translations("fr")) == f"il reste 3{NARROW}h 12{NBSP}min"
    ago = at - timedelta(minutes=4)
    assert time_left_text(ago, at, "fr", translations("fr")) == f"expirée il y a 4{NBSP}min"
    assert time_left_text(at, at, "en", translations("en")) == "expired moments ago"
    assert duration_text(40, "fr") == f"40{NARROW}s"


def test_the_countdown_gets_the_same_words_as_the_page() -> None:
    words = countdown_words("fr", translations("fr"))
    assert words["left"] == "il reste {0}"
    assert words["units"] == {
        "hours": [f"{{0}}{NARROW}h"] * 2,
        "minutes": [f"{{0}}{NBSP}min"] * 2,
        "seconds": [f"{{0}}{NARROW}s"] * 2,
    }
    json.dumps(words)  # it travels in an attribute as JSON


@pytest.mark.parametrize("language", ["en", "fr"])
@pytest.mark.parametrize("currency", ["EUR", "USD", "JPY", "KWD"])
def test_an_amount_reads_as_babels_currency_pattern_with_the_code(
    language: str, currency: str
) -> None:
    """The number and the code, as `format_currency` writes `#,##0.00 ¤¤`, without its
    currency lookups; whatever digits the currency usually has, two decimals."""
    from babel.numbers import format_currency

    for minor in (0, 5, -5, 99, 8990, -123456, 1234567890, 10**12 + 1):
        value = Decimal(minor) / 100
        expected = format_currency(
            value, currency, format="#,##0.00 ¤¤", locale=language, currency_digits=False
        )
        assert amount_text(value, currency, language) == expected
