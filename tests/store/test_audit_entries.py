"""The audit as the faces read it (`signoff/service/audit.py`): frozen entries copied
from the store's rows, never the rows themselves, each with the exact text its hash
covers, so that an export can be checked by anyone."""

from __future__ import annotations

import dataclasses
import hashlib
from datetime import UTC, datetime

import pytest
from sqlalchemy import Engine

from activities.store.decisions import append_decision
from signoff.service.audit import AuditEntry, AuditQuery, audit_page, audit_rows
from signoff.service.handles import Store
from workflows.actions import DecisionEvent, DecisionRecord


def approval(sequence: int, reviewer: str) -> DecisionEvent:
    return DecisionEvent(
        run_id="run-demo-entries",
        tenant_id="demo",
        ticket_id="T-1042",
        sequence=sequence,
        record=DecisionRecord(
            action_hash="c" * 64,
            kind="approved",
            reviewer_id=reviewer,
            at=datetime.now(UTC),
            reason="photo matches",
            order_id="C-1042",
            amount="60.00",
            currency="EUR",
        ),
    )


def test_a_page_holds_frozen_entries_whose_hash_the_reader_can_recompute(store: Engine) -> None:
    append_decision(store, approval(0, "alice"))
    append_decision(store, approval(1, "bob"))
    page = audit_page(Store(store), AuditQuery("demo"), limit=10)
    assert page.total == 2 and page.next_before is None
    newest, oldest = page.rows
    assert all(type(entry) is AuditEntry for entry in page.rows)
    assert (newest.reviewer_id, oldest.reviewer_id) == ("bob", "alice")
    assert str(newest.amount) == "60.00"
    # The chain, from the entries alone: each hash covers the previous one and the text.
    for entry in page.rows:
        covered = entry.prev_hash.encode() + b"\n" + entry.hashed_fields.encode()
        assert hashlib.sha256(covered).hexdigest() == entry.row_hash
    assert newest.prev_hash == oldest.row_hash
    with pytest.raises(dataclasses.FrozenInstanceError):
        newest.reason = "changed"  # type: ignore[misc]


def test_the_whole_log_reads_as_entries_too(store: Engine) -> None:
    for sequence in range(3):
        append_decision(store, approval(sequence, f"reviewer-{sequence}"))
    entries = audit_rows(Store(store), AuditQuery("demo"), batch=2)
    assert [entry.seq for entry in entries] == [3, 2, 1]
    assert all(type(entry) is AuditEntry for entry in entries)
