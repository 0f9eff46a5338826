"""Known audit rows for the approval insight's tests (store, routes, browser): written
through the audit's own appender with the insight's columns set, so that each test knows
every figure the page must show."""

from __future__ import annotations

import itertools
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import Engine

from activities.store.database import write_transaction
from activities.store.decisions import NewEvent, append_event
from tests.clock import clock_now

NOW = clock_now()
SINCE, UNTIL = NOW - timedelta(days=30), NOW + timedelta(seconds=1)
MINUTE_MS = 60_000
KEYS = itertools.count()


def add(store: Engine, kind: str, outcome: str | None, **columns: Any) -> None:
    """One audit row in a transaction of its own (`event`'s columns)."""
    with write_transaction(store) as session:
        append_event(session, event(kind, outcome, **columns))


def event(
    kind: str,
    outcome: str | None,
    *,
    tool: str | None = "refund",
    reviewer: str | None = None,
    waited_ms: int | None = None,
    category: str | None = None,
    amount_minor: int | None = None,
    tenant: str = "demo",
    run_id: str | None = None,
    action_hash: str = "a" * 64,
    rule_id: str | None = None,
    at: datetime | None = None,
) -> NewEvent:
    """An audit row with the insight's columns set, under a key of its own."""
    key = next(KEYS)
    return NewEvent(
        event_key=f"{key:064d}",
        tenant_id=tenant,
        kind=kind,
        run_id=run_id or f"run-{key}",
        ticket_id="T-1042",
        action_hash=action_hash,
        decided_at=at or NOW,
        reviewer_id=reviewer,
        amount_minor=amount_minor,
        currency=None if amount_minor is None else "EUR",
        outcome=outcome,
        tool=tool,
        category=category,
        waited_ms=waited_ms,
        rule_id=rule_id,
    )


def known_rows(store: Engine) -> None:
    for minutes in range(1, 21):
        add(
            store,
            "approved",
            "approved",
            reviewer="alice",
            waited_ms=minutes * MINUTE_MS,
            amount_minor=1000,
        )
    add(store, "rejected", "rejected", reviewer="bob", waited_ms=30_000, category="wrong_amount")
    add(store, "rejected", "rejected", reviewer="bob", waited_ms=90_000, category="suspected_fraud")
    add(store, "expired", "expired")
    add(store, "rule_approved", "rule_approved", reviewer="admin", amount_minor=500, rule_id="R-2")
    add(store, "edited", "edited", tool="send_reply", reviewer="bob", waited_ms=10_000)
    add(store, "approved", "edit_approved", tool="send_reply", reviewer="bob", waited_ms=10_000)
    # Four eyes: the first approval is carol's, the one that ends the request dave's.
    add(
        store,
        "first_approval",
        "approved",
        tool="goodwill",
        reviewer="carol",
        waited_ms=100_000,
        amount_minor=5000,
    )
    add(
        store,
        "approved",
        "approved",
        tool="goodwill",
        reviewer="dave",
        waited_ms=200_000,
        amount_minor=5000,
    )
    add(store, "executed", "refunded", tool=None, amount_minor=1000)
    # A shadow rule on four actions: approved, rejected, expired, still waiting.
    for run, end in (
        ("run-s1", "approved"),
        ("run-s2", "rejected"),
        ("run-s3", "expired"),
        ("run-s4", None),
    ):
        add(
            store,
            "rule_shadow",
            "rule_shadow",
            tool="send_reply",
            reviewer="admin",
            run_id=run,
            rule_id="R-1",
        )
        if end is not None:
            who = {"approved": "erin", "rejected": "frank"}.get(end)
            category = "not_eligible" if end == "rejected" else None
            add(store, end, end, tool="send_reply", reviewer=who, run_id=run, category=category)
    # Never counted: another tenant's, one before the period, rows that end no request.
    add(
        store,
        "approved",
        "approved",
        tenant="globex",
        reviewer="carol",
        waited_ms=1,
        amount_minor=99_999,
    )
    add(
        store,
        "approved",
        "approved",
        reviewer="alice",
        waited_ms=1,
        amount_minor=77_777,
        at=SINCE - timedelta(seconds=1),
    )
    add(store, "refused", None, reviewer="alice")
