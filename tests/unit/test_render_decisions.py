"""The decision trail as `signoff status` prints it: who, what it was about, and why."""

from __future__ import annotations

from datetime import UTC, datetime

from signoff.cli.render import decision_lines
from workflows.actions import DecisionRecord

AT = datetime(2026, 11, 29, 9, 30, tzinfo=UTC)


def test_each_decision_says_what_it_was_about() -> None:
    rejected = DecisionRecord(
        action_hash="ab" * 32,
        kind="rejected",
        reviewer_id="bob",
        at=AT,
        reason="no photo",
        order_id="C-1042",
        amount="89.90",
        currency="EUR",
    )
    # Its money and order are its action's exposure; a record without one (from before
    # the amount was kept, or of a tool that declares none) names its action by hash only.
    older = DecisionRecord(action_hash="cd" * 32, kind="expired", at=AT)
    assert decision_lines([rejected, older]) == [
        "decisions:",
        "  2026-11-29 09:30:00  rejected by bob  89.90 EUR on order C-1042  abababababab: no photo",
        "  2026-11-29 09:30:00  expired  cdcdcdcdcdcd",
    ]
    assert decision_lines([]) == []
