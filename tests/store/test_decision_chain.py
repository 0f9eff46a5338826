"""The audit table on both backends: append, retry, chain, tampering, concurrency.

Each test appends events as the `record_decision` activity does (a run's trail, by
sequence number) and checks the chain with `verify_chain`, the check behind
`signoff audit verify`.
"""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import Engine, func, select, text
from sqlalchemy.exc import DBAPIError

from activities.store.database import use_session, write_transaction
from activities.store.decision_chain import GENESIS, verify_chain
from activities.store.decision_queries import AuditQuery, audit_page
from activities.store.decisions import AuditConflict, append_decision
from activities.store.errors import UnknownTenant
from activities.store.refunds import execute_refund
from activities.store.schema import DecisionRow
from tests.store.commands import refund_command
from workflows.actions import DecisionEvent, DecisionKind, DecisionRecord

HASH = "b" * 64
START = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)
CONTENDERS = 12


def event(
    sequence: int,
    kind: DecisionKind = "rejected",
    *,
    run_id: str = "run-demo-1",
    tenant_id: str = "demo",
    reviewer: str | None = "bob",
    reason: str = "no photo",
    number: int | None = None,
    required: int | None = None,
) -> DecisionEvent:
    return DecisionEvent(
        run_id=run_id,
        tenant_id=tenant_id,
        ticket_id="T-1042",
        sequence=sequence,
        record=DecisionRecord(
            action_hash=HASH,
            kind=kind,
            reviewer_id=reviewer,
            at=START + timedelta(minutes=sequence),
            reason=reason,
            order_id="C-1042",
            amount="60.00",
            currency="EUR",
        ),
        approval_number=number,
        approvals_required=required,
    )


def rows(engine: Engine, tenant_id: str = "demo") -> list[DecisionRow]:
    with use_session(engine) as session:
        query = select(DecisionRow).where(DecisionRow.tenant_id == tenant_id)
        return list(session.scalars(query.order_by(DecisionRow.seq)))


def test_each_kind_is_appended_in_one_chain(store: Engine) -> None:
    kinds: list[DecisionKind] = ["denied", "voided", "expired", "cancelled", "refused"]
    for sequence, kind in enumerate(kinds):
        append_decision(store, event(sequence, kind, reviewer=None))
    append_decision(store, event(5, "approved", reviewer="alice", number=1, required=2))
    append_decision(store, event(6, "approved", reviewer="bob", number=2, required=2))
    stored = rows(store)
    assert [row.kind for row in stored] == [*kinds, "first_approval", "approved"]
    assert [row.seq for row in stored] == list(range(1, 8))
    assert stored[0].prev_hash == GENESIS
    links = zip(stored, stored[1:], strict=False)
    assert all(row.prev_hash == before.row_hash for before, row in links)
    assert stored[5].amount is not None and str(stored[5].amount) == "60.00"
    report = verify_chain(store)
    assert report.intact and report.rows == {"demo": 7}
    assert report.heads["demo"] == stored[-1].row_hash


def test_a_retried_append_writes_nothing_twice(store: Engine) -> None:
    first = append_decision(store, event(0))
    again = append_decision(store, event(0))
    assert again.id == first.id and len(rows(store)) == 1
    # The same key with other contents is a bug, refused rather than hidden.
    changed = event(0).model_copy(
        update={"record": event(0).record.model_copy(update={"at": START + timedelta(days=1)})}
    )
    with pytest.raises(AuditConflict):
        append_decision(store, changed)
    assert len(rows(store)) == 1


def test_an_unknown_tenant_is_refused(store: Engine) -> None:
    with pytest.raises(UnknownTenant):
        append_decision(store, event(0, tenant_id="nobody"))


def test_tenants_have_chains_of_their_own(store: Engine) -> None:
    append_decision(store, event(0))
    append_decision(store, event(0, run_id="run-globex-1", tenant_id="globex"))
    append_decision(store, event(1))
    assert [row.seq for row in rows(store, "globex")] == [1]
    assert rows(store, "globex")[0].prev_hash == GENESIS
    assert verify_chain(store, "demo").rows == {"demo": 2}
    page = audit_page(store, AuditQuery("globex"), limit=10)
    assert page.total == 1 and page.rows[0].run_id == "run-globex-1"


def test_concurrent_appends_make_one_unbroken_chain(store: Engine) -> None:
    start = threading.Barrier(CONTENDERS)

    def append(index: int) -> int:
        start.wait()
        # Every event twice, as an activity whose first attempt timed out but ran on.
        first = append_decision(store, event(index, run_id=f"run-demo-{index}")).id
        return first

    with ThreadPoolExecutor(max_workers=CONTENDERS) as pool:
        ids = list(pool.map(append, [*range(CONTENDERS), *range(CONTENDERS)]))
    assert len(set(ids)) == CONTENDERS
    stored = rows(store)
    assert [row.seq for row in stored] == list(range(1, CONTENDERS + 1))
    assert verify_chain(store).intact


def test_keyset_pages_are_newest_first_with_the_true_total(store: Engine) -> None:
    for sequence in range(5):
        append_decision(store, event(sequence, reviewer="alice" if sequence % 2 else "bob"))
    query = AuditQuery("demo", reviewer="bob")
    first = audit_page(store, query, limit=2)
    assert first.total == 3 and [row.seq for row in first.rows] == [5, 3]
    second = audit_page(store, query, before=first.next_before, limit=2)
    assert [row.seq for row in second.rows] == [1] and second.next_before is None
    day = START.date()
    assert audit_page(store, AuditQuery("demo", since=day, until=day), limit=9).total == 5
    later = AuditQuery("demo", since=day + timedelta(days=1))
    assert audit_page(store, later, limit=9).total == 0


def test_an_executed_refund_is_audited_in_its_own_transaction(store: Engine) -> None:
    command = refund_command(store, key="run-1/refund-1", amount_minor=1000)
    result = execute_refund(store, command)
    assert result.status == "refunded"
    assert execute_refund(store, command).refund_id == result.refund_id  # a retry
    [row] = rows(store)
    assert (row.kind, row.refund_id, row.amount_minor) == ("executed", result.refund_id, 1000)
    assert row.reason == "approved by alice" and verify_chain(store).intact


def _tamper(engine: Engine, statement: str) -> None:
    with write_transaction(engine) as session:
        if engine.dialect.name == "postgresql":
            # Only someone who may alter the table (here the superuser) gets past it.
            session.execute(text("ALTER TABLE decisions DISABLE TRIGGER decisions_append_only"))
        session.execute(text(statement))


def test_an_edited_row_is_named_by_verify(store: Engine) -> None:
    for sequence in range(3):
        append_decision(store, event(sequence))
    second = rows(store)[1]
    _tamper(store, f"UPDATE decisions SET reason = 'all fine' WHERE id = {second.id}")
    report = verify_chain(store)
    [broken] = report.broken
    assert (broken.row_id, broken.tenant_id, broken.seq) == (second.id, "demo", 2)
    assert "altered" in broken.why and broken.decided_at == second.decided_at


def test_a_deleted_row_is_named_by_the_gap_it_leaves(store: Engine) -> None:
    for sequence in range(3):
        append_decision(store, event(sequence))
    stored = rows(store)
    _tamper(store, f"DELETE FROM decisions WHERE id = {stored[1].id}")
    [broken] = verify_chain(store).broken
    assert broken.row_id == stored[2].id and "deleted" in broken.why


def test_postgresql_refuses_to_change_or_remove_a_row(store: Engine) -> None:
    if store.dialect.name != "postgresql":
        pytest.skip("the trigger is PostgreSQL's; SQLite relies on the chain alone")
    append_decision(store, event(0))
    for statement in (
        "UPDATE decisions SET reason = 'all fine'",
        "DELETE FROM decisions",
        "TRUNCATE decisions",
    ):
        with pytest.raises(DBAPIError, match="append-only"), write_transaction(store) as s:
            s.execute(text(statement))
    with use_session(store) as session:
        assert session.scalar(select(func.count()).select_from(DecisionRow)) == 1
    assert verify_chain(store).intact
