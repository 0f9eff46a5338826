"""The run page's opening sentences in the page's language: the same facts in English
and in French, with amounts and times as each language writes them, the codes a run
keeps (its status, why it ended, a rejection's category) named in words, and the
customer's and reviewer's own words kept as they wrote them."""

from __future__ import annotations

from datetime import timedelta

from approvals_ui.run_summary import summarize
from approvals_ui.time_format import local_text
from approvals_ui.translations import translations
from tests.clock import clock_now
from workflows.actions import DecisionRecord
from workflows.contracts import ModelRef, RunOutcome, RunState, ToolCallRecord, Usage

NOW = clock_now()
USAGE = Usage(input_tokens=1, output_tokens=1)
MODEL = ModelRef(provider="scripted", model_id="demo")
CALLS = [
    ToolCallRecord(turn=1, tool_use_id="t1", name="read_ticket", ok=True),
    ToolCallRecord(turn=2, tool_use_id="t2", name="get_order", ok=False, error="timeout"),
    ToolCallRecord(turn=2, tool_use_id="t3", name="refund", ok=True),
]
REJECTED = DecisionRecord(
    action_hash="ab" * 32,
    kind="rejected",
    reviewer_id="bob",
    at=NOW - timedelta(minutes=5),
    reason="Hors délai.",
    category="not_eligible",
    order_id="C-1042",
    amount="1234.50",
    currency="EUR",
)


def rejected_run() -> RunState:
    return RunState(
        run_id="run-demo-1",
        tenant_id="demo",
        ticket_id="T-1042",
        status="completed",
        turns_used=3,
        usage=USAGE,
        step_budget=8,
        token_budget=1000,
        deadline=NOW + timedelta(days=1),
        model=MODEL,
        tool_calls=CALLS,
        events=[],
        decisions=[REJECTED],
        outcome=RunOutcome(
            run_id="run-demo-1",
            status="completed",
            reason="answered",
            final_text="Sorry.",
            turns_used=3,
            usage=USAGE,
            tool_calls=CALLS,
            model=MODEL,
            scripted=True,
        ),
    )


def sentences(language: str) -> list[str]:
    summary = summarize(
        rejected_run(), "My vase broke.", "Kim", NOW, translations(language), language
    )
    return summary.sentences()


def test_the_summary_in_english() -> None:
    at = local_text(REJECTED.at, "en")
    assert sentences("en") == [
        "The customer (Kim) wrote on ticket T-1042: “My vase broke.”",
        "The agent read the ticket, looked the order up and proposed a refund of 1,234.50 EUR "
        "on order C-1042 in 3 model turns; 1 tool call failed.",
        f"The refund of 1,234.50 EUR rejected by bob at {at} (“not eligible: Hors délai.”).",
        "The run completed (answered): no refund was made, and the agent answered the customer.",
    ]


def test_the_same_summary_in_french() -> None:
    at = local_text(REJECTED.at, "fr")
    assert sentences("fr") == [
        "Le client (Kim) a écrit sur le ticket T-1042 : « My vase broke. »",
        "L’agent a lu le ticket, a consulté la commande et a proposé un remboursement de "
        "1\u202f234,50 EUR sur la commande C-1042 en 3 tours du modèle ; 1 appel d’outil a "
        "échoué.",
        f"La demande de remboursement de 1\u202f234,50 EUR : refusée par bob, le {at} "
        "(« non éligible : Hors délai. »).",
        "L’exécution : terminée (réponse donnée) ; aucun remboursement n’a été fait, et "
        "l’agent a répondu au client.",
    ]


def test_a_decision_on_another_tool_is_said_with_its_name_never_as_a_refund() -> None:
    reply = ToolCallRecord(turn=2, tool_use_id="t3", name="send_reply", ok=True)
    edited = REJECTED.model_copy(
        update={"kind": "edited", "order_id": None, "amount": None, "currency": None}
    )
    run = rejected_run().model_copy(
        update={"tool_calls": [*CALLS[:2], reply], "decisions": [edited]}
    )
    for language in ("en", "fr"):
        summary = summarize(run, "My vase broke.", "Kim", NOW, translations(language), language)
        assert summary.decided.startswith("send_reply ")
        assert "refund" not in summary.decided and "rembours" not in summary.decided
        assert "refund" not in summary.did and "rembours" not in summary.did


def test_a_decision_on_a_tool_with_exposure_names_its_money_with_it() -> None:
    voucher = ToolCallRecord(turn=2, tool_use_id="t3", name="issue_voucher", ok=True)
    approved = REJECTED.model_copy(
        update={"kind": "approved", "order_id": None, "amount": "15.00", "reason": ""}
    )
    run = rejected_run().model_copy(
        update={"tool_calls": [*CALLS[:2], voucher], "decisions": [approved]}
    )
    summary = summarize(run, "My vase broke.", "Kim", NOW, translations("en"), "en")
    assert summary.decided.startswith("issue_voucher (15.00 EUR) approved by bob at ")
    assert "None" not in " ".join(summary.sentences())


def test_the_effects_a_run_made_stay_out_of_a_french_sentence() -> None:
    """The run writes its effects in English ("refund 45.00 EUR on order C-2210"): an
    English sentence quotes them, a French one counts them (the list below shows them)."""
    effect = "refund 45.00 EUR on order C-2210 (refund re_1)"
    run = rejected_run()
    assert run.outcome is not None
    refunded = run.model_copy(
        update={"outcome": run.outcome.model_copy(update={"effects_performed": [effect]})}
    )

    def outcome(language: str) -> str:
        words = translations(language)
        return summarize(refunded, "My vase broke.", "Kim", NOW, words, language).outcome

    assert outcome("en") == (
        f"The run completed (answered): it made {effect}, and the agent answered the customer."
    )
    assert outcome("fr") == (
        "L’exécution : terminée (réponse donnée) ; elle a effectué 1 changement, listé "
        "ci-dessous, et l’agent a répondu au client."
    )
