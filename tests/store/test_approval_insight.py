"""The approval insight's figures, on both backends, from known audit rows: requests and
outcomes per tool and per reviewer, rejections by category, nearest-rank p50 and p95 of
the waits, money approved and refunded per currency, the standing rules' share, and a
shadow rule's agreement with the reviewers with its disagreements listed; another
tenant's rows and rows outside the period never count. And the writer: a trail event's
row carries the columns the figures read."""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import Engine, select

from activities.store.approval_insight import approval_insight
from activities.store.database import use_session, write_transaction
from activities.store.decisions import (
    append_decision,
    append_executed_effect,
)
from activities.store.schema import DecisionRow
from activities.store.waiting_actions import hold_waiting
from tests.insight_rows import MINUTE_MS, NOW, SINCE, UNTIL, known_rows
from tests.store.test_waiting_actions import an_action
from workflows.actions import ActionHold, DecisionEvent, DecisionRecord


def test_the_figures_of_known_rows(store: Engine) -> None:
    known_rows(store)
    insight = approval_insight(store, "demo", SINCE, UNTIL)
    tools = {tally.name: tally for tally in insight.tools}
    assert sorted(tools) == ["goodwill", "refund", "send_reply"]
    refund = tools["refund"]
    assert (refund.requests, refund.approved, refund.expired, refund.by_rule) == (24, 20, 1, 1)
    assert dict(refund.rejected) == {"wrong_amount": 1, "suspected_fraud": 1}
    assert dict(refund.money_approved) == {"EUR": 20 * 1000 + 500}
    assert refund.rule_share == 1 / 24
    # 22 waits: 30 s, 1 min, 90 s, then 2 to 20 min. Rank 11 is 9 min, rank 21 is 19 min.
    assert (refund.p50_ms, refund.p95_ms) == (9 * MINUTE_MS, 19 * MINUTE_MS)
    reply = tools["send_reply"]
    assert (reply.requests, reply.approved, reply.edited, reply.expired) == (4, 1, 1, 1)
    assert dict(reply.rejected) == {"not_eligible": 1}
    goodwill = tools["goodwill"]
    assert (goodwill.requests, goodwill.approved, goodwill.p50_ms, goodwill.p95_ms) == (
        1,
        1,
        200_000,
        200_000,
    )
    reviewers = {tally.name: tally for tally in insight.reviewers}
    # A rule's creator is no reviewer of what the rule approved.
    assert sorted(reviewers) == ["alice", "bob", "carol", "dave", "erin", "frank"]
    alice = reviewers["alice"]
    assert (alice.requests, alice.approved, alice.p50_ms, alice.p95_ms) == (
        20,
        20,
        10 * MINUTE_MS,
        19 * MINUTE_MS,
    )
    assert dict(alice.money_approved) == {"EUR": 20_000}
    bob = reviewers["bob"]
    assert (bob.requests, bob.edited, bob.rejected_total) == (3, 1, 2)
    assert (bob.p50_ms, bob.p95_ms) == (30_000, 90_000)
    assert (reviewers["carol"].approved, reviewers["carol"].p50_ms) == (1, 100_000)
    total = insight.total
    assert (total.requests, total.by_rule) == (29, 1)
    assert dict(total.money_approved) == {"EUR": 20_000 + 500 + 5000}
    # 24 waits: 10 s, 30 s, 1 min, 90 s, 2..20 min, 200 s. Rank 12 is 9 min... see below.
    waits = sorted([10_000, 30_000, 90_000, 200_000, *(m * MINUTE_MS for m in range(1, 21))])
    assert (total.p50_ms, total.p95_ms) == (waits[12 - 1], waits[23 - 1])
    assert insight.refunded == {"EUR": 1000}
    [shadow] = insight.shadows
    assert (shadow.rule_id, shadow.matched, shadow.compared, shadow.agreed) == ("R-1", 4, 2, 1)
    assert shadow.agreement == 0.5
    [disagreement] = shadow.disagreements
    assert (disagreement.run_id, disagreement.outcome, disagreement.reviewer_id) == (
        "run-s2",
        "rejected",
        "frank",
    )
    assert disagreement.category == "not_eligible"


def test_another_tenant_sees_its_own_rows_only(store: Engine) -> None:
    known_rows(store)
    insight = approval_insight(store, "globex", SINCE, UNTIL)
    assert [tally.name for tally in insight.reviewers] == ["carol"]
    assert dict(insight.total.money_approved) == {"EUR": 99_999}
    assert insight.shadows == [] and insight.refunded == {}


def test_an_empty_period_has_no_figures(store: Engine) -> None:
    known_rows(store)
    insight = approval_insight(store, "demo", NOW + timedelta(days=1), NOW + timedelta(days=2))
    assert insight.tools == [] and insight.reviewers == [] and insight.total.requests == 0
    assert insight.total.p50_ms is None and insight.total.rule_share is None


def test_a_trail_events_row_carries_what_the_figures_read(store: Engine) -> None:
    reply = an_action(store, "e" * 64, 1000).model_copy(
        update={"tool": "send_reply", "exposure": None}
    )
    hold_waiting(
        store, ActionHold(run_id="run-w", tenant_id="demo", ticket_id="T-3107", action=reply), NOW
    )

    def event(sequence: int, kind: str, **fields: object) -> DecisionEvent:
        return DecisionEvent(
            run_id="run-w",
            tenant_id="demo",
            ticket_id="T-3107",
            sequence=sequence,
            record=DecisionRecord(action_hash=reply.action_hash, kind=kind, at=NOW, **fields),  # type: ignore[arg-type]
            requested_at=NOW - timedelta(seconds=90),
        )

    shadow_reason = (
        "standing rule R-7 would have approved this (created by admin); it is in shadow "
        "mode, so a reviewer decides"
    )
    append_decision(store, event(0, "rule_shadow", reviewer_id="admin", reason=shadow_reason))
    append_decision(
        store, event(1, "rejected", reviewer_id="bob", reason="no", category="wrong_amount")
    )
    with write_transaction(store) as session:
        append_executed_effect(
            session,
            tenant_id="demo",
            run_id="run-x",
            ticket_id="T-1042",
            action_hash="f" * 64,
            effect_key="key-x",
            reason="approved by alice",
            amount_minor=500,
            currency="EUR",
            refund_id="re-1",
        )
    with use_session(store) as session:
        found = session.execute(
            select(
                DecisionRow.kind,
                DecisionRow.outcome,
                DecisionRow.tool,
                DecisionRow.rule_id,
                DecisionRow.category,
                DecisionRow.waited_ms,
            ).order_by(DecisionRow.id)
        ).all()
    assert [tuple(row) for row in found[-3:]] == [
        ("rule_shadow", "rule_shadow", "send_reply", "R-7", None, 90_000),
        ("rejected", "rejected", "send_reply", None, "wrong_amount", 90_000),
        ("executed", "refunded", None, None, None, None),
    ]
