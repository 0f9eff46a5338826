"""Which language a page speaks: the reviewer's choice, else Accept-Language by its
q-values, else English; a language the UI does not speak never wins."""

from __future__ import annotations

import pytest

from approvals_ui.locale_choice import accepted_languages, page_language


def test_the_reviewers_choice_wins_over_the_browser() -> None:
    assert page_language("fr", "en-US,en;q=0.9") == "fr"
    assert page_language("en", "fr-FR,fr;q=0.9") == "en"


def test_without_a_choice_the_browser_decides_by_q_value_not_by_order() -> None:
    assert page_language(None, "de;q=0.9,fr;q=0.8,en;q=0.5") == "fr"
    assert page_language(None, "en;q=0.4,fr-CA;q=0.6") == "fr"
    assert page_language(None, "fr;q=0.5,en") == "en"  # no q is 1


def test_equal_q_values_keep_the_order_the_browser_gave() -> None:
    assert accepted_languages("fr;q=0.8, en;q=0.8, de") == ["de", "fr", "en"]
    assert page_language(None, "fr;q=0.8,en;q=0.8") == "fr"


def test_a_region_matches_its_language() -> None:
    assert page_language(None, "fr-CH") == "fr"
    assert page_language(None, "EN-gb") == "en"


@pytest.mark.parametrize(
    "header",
    [None, "", "de-DE,de;q=0.9", "fr;q=0", "fr;q=abc", "fr;q=2", ";;;,,", "x" * 5000],
)
def test_nothing_the_ui_speaks_falls_back_to_english(header: str | None) -> None:
    assert page_language(None, header) == "en"


def test_an_unknown_or_withdrawn_choice_falls_back_to_the_browser() -> None:
    assert page_language("de", "fr") == "fr"
    assert page_language("", "fr") == "fr"


def test_q_zero_refuses_a_language_the_browser_also_lists() -> None:
    assert page_language(None, "fr;q=0, en;q=0.1") == "en"
    assert page_language(None, "de, *;q=0.5, fr;q=0.1") == "en"  # `*` before fr: the source
