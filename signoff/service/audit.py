"""Reading the decision audit, for every face: pages of it, all of it (CSV), and the
check of its hash chain.

The audit lives in the store (append-only `decisions` table, hash-chained per tenant);
this is the boundary the faces read it through.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal

from activities.store import audit_proofs, decision_chain, decision_queries
from activities.store.audit_actions import shown_problems
from activities.store.audit_proofs import (
    NoKeysToCheck,
    ProofReport,
    UnprovenDecision,
)
from activities.store.decision_chain import ChainReport, hashed_fields
from activities.store.decision_queries import AuditQuery
from activities.store.decisions import AUDIT_KINDS
from activities.store.prompt_catalogs import CatalogMissing, CatalogTampered, read_catalog
from activities.store.schema import DecisionRow, minor_to_decimal
from signoff.service.handles import Store, engine_of, on_store

__all__ = [
    "AUDIT_KINDS",
    "AuditEntry",
    "AuditPage",
    "AuditQuery",
    "CatalogMissing",
    "CatalogTampered",
    "ChainReport",
    "NoKeysToCheck",
    "ProofReport",
    "UnprovenDecision",
    "unproven_decisions",
    "audit_page",
    "audit_rows",
    "read_prompt_catalog",
    "verify_chain",
]

# The store layer's calls, each taking the face's Store (handles.py).
unproven_decisions = on_store(audit_proofs.unproven_decisions)
verify_chain = on_store(decision_chain.verify_chain)
# What a run's model was offered (workflows/prompt_catalog.py), its hash checked.
read_prompt_catalog = on_store(read_catalog)


@dataclass(frozen=True)
class AuditEntry:
    """One event of the audit as a face reads it: the row's fields, and `hashed_fields`,
    the exact text its hash covers after `prev_hash` and a newline (exports carry it, so
    anyone can recompute the chain). Never the store's row."""

    id: int
    tenant_id: str
    seq: int
    event_key: str
    kind: str
    run_id: str
    ticket_id: str
    action_hash: str
    reviewer_id: str | None
    reason: str
    order_id: str | None
    amount_minor: int | None
    currency: str | None
    refund_id: str | None
    decided_at: datetime
    recorded_at: datetime
    prev_hash: str
    row_hash: str
    proof: str | None
    hashed_fields: str
    # A reviewer's decision: the action its proof names (JSON), and why the order and
    # amount the row shows are not that action's, or None (audit_actions.py).
    action: str | None = None
    values_problem: str | None = None

    @property
    def amount(self) -> Decimal | None:
        return None if self.amount_minor is None else minor_to_decimal(self.amount_minor)


@dataclass(frozen=True)
class AuditPage:
    rows: tuple[AuditEntry, ...]
    total: int
    # The cursor of the next (older) page, or None on the last page.
    next_before: int | None


def _entries(store: Store, rows: Sequence[DecisionRow]) -> tuple[AuditEntry, ...]:
    problems = shown_problems(engine_of(store), rows)
    return tuple(_entry(row, problems.get(row.id)) for row in rows)


def _entry(row: DecisionRow, values_problem: str | None) -> AuditEntry:
    return AuditEntry(
        id=row.id,
        tenant_id=row.tenant_id,
        seq=row.seq,
        event_key=row.event_key,
        kind=row.kind,
        run_id=row.run_id,
        ticket_id=row.ticket_id,
        action_hash=row.action_hash,
        reviewer_id=row.reviewer_id,
        reason=row.reason,
        order_id=row.order_id,
        amount_minor=row.amount_minor,
        currency=row.currency,
        refund_id=row.refund_id,
        decided_at=row.decided_at,
        recorded_at=row.recorded_at,
        prev_hash=row.prev_hash,
        row_hash=row.row_hash,
        proof=row.proof,
        hashed_fields=hashed_fields(row),
        action=row.action,
        values_problem=values_problem,
    )


def audit_page(
    store: Store, query: AuditQuery, *, before: int | None = None, limit: int
) -> AuditPage:
    """One page of the tenant's audit, newest first (`before`: the previous page's
    cursor)."""
    page = decision_queries.audit_page(engine_of(store), query, before=before, limit=limit)
    return AuditPage(_entries(store, page.rows), page.total, page.next_before)


def audit_rows(store: Store, query: AuditQuery, *, batch: int) -> list[AuditEntry]:
    """Every matching event, newest first, read in batches of `batch` (for the CSV)."""
    return list(_entries(store, decision_queries.audit_rows(engine_of(store), query, batch=batch)))
