"""A run that waits for its customer (`ask_customer`) says so, since when: on its page,
in the page's language, and in `signoff status`."""

from __future__ import annotations

from datetime import timedelta

from approvals_ui.run_summary import summarize
from approvals_ui.translations import translations
from signoff.cli.render import state_lines
from tests.clock import clock_now
from tests.unit.test_run_summary_words import rejected_run
from workflows.contracts import RunState

NOW = clock_now()
SINCE = NOW - timedelta(hours=5)


def waiting_run(waiting: bool) -> RunState:
    return rejected_run().model_copy(
        update={
            "status": "waiting_for_customer",
            "decisions": [],
            "outcome": None,
            "waiting_for_customer_since": SINCE if waiting else None,
        }
    )


def ended_sentence(language: str, waiting: bool) -> str:
    run = waiting_run(waiting)
    summary = summarize(run, "My vase broke.", "Kim", NOW, translations(language), language)
    return summary.sentences()[-1]


def test_the_run_page_says_since_when_the_run_waits_for_the_customer() -> None:
    at = f"{SINCE:%Y-%m-%d %H:%M}"
    assert ended_sentence("en", True) == (
        f"The run has been waiting for the customer since {at} UTC."
    )
    assert ended_sentence("fr", True) == f"L’exécution attend le client depuis le {at} UTC."


def test_its_status_has_words_in_both_languages() -> None:
    assert ended_sentence("en", False) == "The run is still going (waiting for the customer)."
    assert ended_sentence("fr", False) == "L’exécution continue (en attente du client)."


def test_signoff_status_says_since_when_the_run_waits_for_the_customer() -> None:
    lines = state_lines(waiting_run(True))
    assert "status:   waiting_for_customer" in lines
    assert f"waiting:  for the customer since {SINCE:%Y-%m-%d %H:%M} UTC" in lines
    assert not any("for the customer" in line for line in state_lines(waiting_run(False)))
