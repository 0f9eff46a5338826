"""Sentences the core keeps as a template and values (workflows/wording.py), written on
a page in its language with each value formatted there (approvals_ui/words.py `shown`):
an edit's refusals, and what an N-of-M request still needs. The English sentence, which
the run, the API and the CLI read, stays as it was."""

from __future__ import annotations

from approvals_ui.translations import translations
from approvals_ui.words import shown
from tests.unit.test_approval_policy import pending
from tests.unit.test_approval_requirements import approval, three_with_finance
from workflows.action_edits import not_an_amount
from workflows.approval_requirements import missing, missing_words, next_step_words
from workflows.wording import Money, worded

NARROW_NO_BREAK_SPACE = "\u202f"  # what Babel writes between French thousands
FRENCH, ENGLISH = translations("fr"), translations("en")


def test_the_refusal_is_in_the_page_language_with_its_example_written_there() -> None:
    wording = not_an_amount("20,00x")
    assert wording.english() == "'20,00x' is not an amount: write it like 50.00."
    assert shown(wording, FRENCH, "fr") == (
        "« 20,00x » n’est pas un montant : écrivez-le comme 50,00.",
        "fr",
    )
    assert shown(wording, ENGLISH, "en") == (wording.english(), "en")


def test_the_amounts_inside_a_refusal_are_written_the_page_language_s_way() -> None:
    above = worded(
        "%(amount)s is above the %(proposed)s proposed: an edit may only lower the amount.",
        amount=Money(123450, "EUR"),
        proposed=Money(6000, "EUR"),
    )
    text, language = shown(above, FRENCH, "fr")
    assert language == "fr"
    assert text == (
        f"1{NARROW_NO_BREAK_SPACE}234,50 EUR dépasse les 60,00 EUR proposés : une "
        "modification ne peut que baisser le montant."
    )
    # An English page groups thousands too; the run and the API keep the plain number.
    assert shown(above, ENGLISH, "en")[0] == (
        "1,234.50 EUR is above the 60.00 EUR proposed: an edit may only lower the amount."
    )
    assert above.english().startswith("1234.50 EUR is above the 60.00 EUR proposed")


def test_a_sentence_the_catalog_lacks_stays_english_and_says_so() -> None:
    unknown = worded("%(amount)s went somewhere new.", amount=Money(100, "EUR"))
    assert shown(unknown, FRENCH, "fr") == ("1.00 EUR went somewhere new.", "en")


def test_what_an_n_of_m_request_still_needs_is_said_in_french_and_unchanged_in_english() -> None:
    two = three_with_finance(approval("alice", "refund_approver"), approval("bob"))
    still = missing_words(two)
    assert still is not None and still.english() == missing(two)
    assert missing(two) == "2 of 3 approvals; still needs one from finance"
    assert shown(still, FRENCH, "fr") == (
        "2 sur 3 approbations ; il en faut encore une du rôle finance",
        "fr",
    )
    refusal = next_step_words(two, "ALICE", ["finance"])
    assert refusal is not None
    assert shown(refusal, FRENCH, "fr")[0] == (
        "Vous avez déjà approuvé cette demande : il faut un autre approbateur, différent "
        "(2 sur 3 approbations ; il en faut encore une du rôle finance)."
    )


def test_a_chain_s_order_is_joined_in_the_page_language() -> None:
    chain = pending([]).model_copy(
        update={"required_approvals": 2, "chain": ["support_lead", "finance"]}
    )
    refusal = next_step_words(chain, "gina", ["finance"])
    assert refusal is not None
    assert "(support_lead, then finance)" in refusal.english()
    assert shown(refusal, FRENCH, "fr")[0] == (
        "Cette demande s’approuve dans l’ordre (support lead, puis finance) : l’étape 1 sur 2 "
        "exige un approbateur ayant le rôle support lead."
    )
