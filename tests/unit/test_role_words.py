"""Roles, modes, who asked for a run and a labelled countdown, as the reviewer pages say
them (approvals_ui/role_words.py, time_format.py), in English and French: support words
where the policy and the store hold codes, and the duration said once."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from approvals_ui.role_words import asked_by, roles_text
from approvals_ui.templating import templates
from approvals_ui.time_format import time_left_text
from approvals_ui.translations import translations
from approvals_ui.words import shown
from tests.unit.test_approval_policy import pending
from workflows.approval_requirements import next_step_words

NOW = datetime(2026, 12, 7, 12, 0, tzinfo=UTC)  # a fixed instant: the code takes its clock
LEFT = timedelta(hours=23, minutes=58, seconds=30)


def said(text: str) -> str:
    """The words, with any space between them as one (Babel writes French with no-break
    spaces)."""
    return " ".join(text.split())


def in_page(source: str, language: str) -> str:
    """A template snippet rendered as a page of `language` renders it."""
    template = templates.env.from_string(source)
    return template.render(language=language, translations=translations(language))


@pytest.mark.parametrize(
    ("language", "expected"),
    [
        ("en", "refund approver or administrator or support lead"),
        ("fr", "approbateur des remboursements ou administrateur ou support lead"),
    ],
)
def test_roles_read_as_support_words(language: str, expected: str) -> None:
    words = translations(language)
    assert roles_text(["refund_approver", "admin", "support_lead"], words) == expected


def test_a_chain_reads_in_order_in_support_words() -> None:
    chain = "{{ ['refund_approver', 'finance_lead']|in_order }}"
    assert in_page(chain, "en") == "refund approver, then finance lead"
    assert in_page(chain, "fr") == "approbateur des remboursements, puis finance lead"


def test_a_mode_reads_by_its_label() -> None:
    assert in_page("{{ 'confirm'|said('mode') }}", "en") == "one reviewer"
    assert in_page("{{ 'review'|said('mode') }}", "fr") == "quatre yeux"


def test_the_service_that_asked_is_named_in_words_a_person_by_name() -> None:
    english, french = translations("en"), translations("fr")
    assert asked_by("service:signoff", english).startswith("signoff itself")
    assert asked_by("service:nightly-batch", french).startswith("signoff lui-même")
    assert asked_by("alice", english) == "alice"
    assert asked_by(None, english) == "not recorded"


def test_an_id_is_one_piece_in_its_own_direction() -> None:
    assert in_page("{{ 'C-1042'|ident }}", "en") == '<bdi class="id">C-1042</bdi>'
    assert in_page("{{ '<b>'|ident }}", "en") == '<bdi class="id">&lt;b&gt;</bdi>'


@pytest.mark.parametrize(
    ("language", "sentence", "bare"),
    [("en", "23 hr 58 min left", "23 hr 58 min"), ("fr", "il reste 23 h 58 min", "23 h 58 min")],
)
def test_a_labelled_countdown_says_the_duration_once(
    language: str, sentence: str, bare: str
) -> None:
    words = translations(language)
    assert said(time_left_text(NOW + LEFT, NOW, language, words)) == sentence
    assert said(time_left_text(NOW + LEFT, NOW, language, words, bare=True)) == bare
    expired = time_left_text(NOW - LEFT, NOW, language, words, bare=True)
    assert said(expired) == said(time_left_text(NOW - LEFT, NOW, language, words))


def test_a_sentence_of_the_core_names_its_roles_in_support_words_on_a_page() -> None:
    """The run and the API keep a refusal's role codes; a page says them in words."""
    chain = pending([]).model_copy(
        update={"required_approvals": 2, "chain": ["refund_approver", "finance_lead"]}
    )
    refusal = next_step_words(chain, "gina", ["finance_lead"])
    assert refusal is not None
    assert refusal.english() == (
        "This request is approved in order (refund_approver, then finance_lead); step 1 of 2 "
        "needs a reviewer with the refund_approver role."
    )
    on_page, _ = shown(refusal, translations("en"), "en")
    assert on_page == (
        "This request is approved in order (refund approver, then finance lead); step 1 of 2 "
        "needs a reviewer with the refund approver role."
    )
    in_french, _ = shown(refusal, translations("fr"), "fr")
    assert "approbateur des remboursements" in in_french and "refund_approver" not in in_french
