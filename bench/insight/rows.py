"""A year of synthetic audit rows, written fast: one multi-row INSERT per batch, straight
into the `decisions` table, with the insight's columns as the audit's writer sets them.

The rows are not a chain (their hashes are placeholders: `signoff audit verify` would
refuse them) and carry no proof nor kept action: the insight reads neither, and the
table's indexes, the ones that cost an insert and those the page reads, are all there.
The mix is a busy tenant's: most requests approved by one of 40 reviewers, some under
four eyes, some edited, rejected by category, expired or approved by a standing rule,
a shadow rule on a few, each approved refund executed, and rows that end no request.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import Engine, func, insert, select

from activities.store.database import table_of
from activities.store.schema import DecisionRow

DECISIONS = table_of(DecisionRow)

TOOLS = ("refund", "refund", "refund", "send_reply", "goodwill", "cancel_order")
REVIEWERS = tuple(f"reviewer{number:02d}" for number in range(40))
CATEGORIES = ("wrong_amount", "not_eligible", "needs_more_information", "suspected_fraud")
# (kind, outcome, weight): what one synthetic row is, by its share of the log.
MIX = (
    ("approved", "approved", 50),
    ("first_approval", "approved", 8),
    ("edited", "edited", 4),
    ("approved", "edit_approved", 4),
    ("rejected", "rejected", 8),
    ("expired", "expired", 4),
    ("rule_approved", "rule_approved", 4),
    ("rule_shadow", "rule_shadow", 3),
    ("executed", "refunded", 10),
    ("refused", None, 3),
    ("escalated", None, 2),
)
BATCH = 20_000
SECONDS_A_DAY = 86_400
LONGEST_WAIT_MS = 8 * 3_600_000  # a day's shift: waits from seconds to eight hours


def audit_rows(tenant_id: str, count: int, end: datetime, days: int) -> Iterator[dict[str, Any]]:
    """`count` rows spread evenly over the `days` before `end`, oldest first."""
    chooser = random.Random(44)
    kinds = [(kind, outcome) for kind, outcome, weight in MIX for _ in range(weight)]
    step = days * SECONDS_A_DAY / count
    start = end - timedelta(days=days)
    for index in range(count):
        kind, outcome = chooser.choice(kinds)
        decided = start + timedelta(seconds=index * step)
        run = f"run-{tenant_id}-{index // 3:07d}"
        money = kind in ("approved", "first_approval", "rule_approved", "executed")
        by_person = kind in ("approved", "first_approval", "edited", "rejected")
        yield {
            "tenant_id": tenant_id,
            "seq": index + 1,
            "event_key": f"{tenant_id}-{index:058d}"[-64:],
            "kind": kind,
            "run_id": run,
            "ticket_id": f"T-{index % 5000}",
            "action_hash": f"{index // 3:064x}",
            "reviewer_id": chooser.choice(REVIEWERS) if by_person else None,
            "reason": "",
            "amount_minor": chooser.randrange(500, 40_000) if money else None,
            "currency": "EUR" if money else None,
            "refund_id": f"re-{index}" if kind == "executed" else None,
            "decided_at": decided,
            "recorded_at": decided,
            "prev_hash": "0" * 64,
            "row_hash": "0" * 64,
            "outcome": outcome,
            "tool": chooser.choice(TOOLS) if kind != "executed" else None,
            "category": chooser.choice(CATEGORIES) if kind == "rejected" else None,
            "waited_ms": chooser.randrange(2_000, LONGEST_WAIT_MS) if by_person else None,
            "rule_id": f"R-{chooser.randrange(3)}" if kind.startswith("rule_") else None,
        }


def fill(engine: Engine, tenant_id: str, count: int, end: datetime, days: int) -> None:
    """Insert the rows in batches, each batch one statement in its own transaction."""
    statement = insert(DECISIONS)
    batch: list[dict[str, Any]] = []
    for row in audit_rows(tenant_id, count, end, days):
        batch.append(row)
        if len(batch) == BATCH:
            with engine.begin() as connection:
                connection.execute(statement, batch)
            batch = []
    if batch:
        with engine.begin() as connection:
            connection.execute(statement, batch)


def append_more(engine: Engine, tenant_id: str, count: int) -> None:
    """`count` more rows decided now, after the chain's head, as new decisions come."""
    with engine.begin() as connection:
        head = connection.scalar(
            select(func.max(DECISIONS.c.seq)).where(DECISIONS.c.tenant_id == tenant_id)
        )
        rows = list(audit_rows(tenant_id, count, datetime.now(UTC), 1))
        for offset, row in enumerate(rows, start=1):
            row["seq"] = int(head or 0) + offset
            row["event_key"] = f"more-{row['seq']:059d}"[-64:]
            row["decided_at"] = row["recorded_at"] = datetime.now(UTC)
        connection.execute(insert(DECISIONS), rows)
