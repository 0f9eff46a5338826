"""The hash chain of the audit: what each row's hash covers, and how the chain is checked.

Design note. Each tenant's decisions form one chain, in `seq` order from 1. A row's
`row_hash` is the SHA-256 of its `prev_hash`, a newline, and the RFC 8785 canonical
JSON of its fields (everything but the database id, the two hashes and the proof; a
reviewer's decision's kept action by the SHA-256 of its text). The first row's
`prev_hash` is `GENESIS`. So an edited field breaks that row's hash; a row rewritten
with a fresh hash breaks the next row's `prev_hash`; a deleted row leaves a gap in
`seq`. `verify_chain` walks the rows and names, per tenant, the first row where one of
those holds. What a chain in one database cannot show: the removal of a tenant's
newest rows (the chain is shorter, but intact), or a rewrite by someone with write
access who rehashes every row after the one they changed (the chain is intact again).
Heads kept elsewhere close both gaps: `signoff audit heads` exports each chain's head
(tenant, seq, row hash), signed, and `chain_heads.py` checks the store against them.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import rfc8785
from sqlalchemy import Engine, select

from activities.store.database import use_session
from activities.store.schema import DecisionRow

GENESIS = "0" * 64
VERIFY_BATCH_ROWS = 1000


def _moment(value: datetime) -> str:
    return value.astimezone(UTC).isoformat(timespec="microseconds")


def row_fields(row: DecisionRow) -> dict[str, Any]:
    """What the hash covers: every column but the id, the hashes themselves and the
    proof (its signature is its own seal). A reviewer's decision's kept action is covered
    by its digest, and only where the row has one, so rows written before it keep their
    hashes (audit_actions.py says why it is inside)."""
    kept = {} if row.action is None else {"action_sha256": action_digest(row.action)}
    return {
        **kept,
        "tenant_id": row.tenant_id,
        "seq": row.seq,
        "event_key": row.event_key,
        "kind": row.kind,
        "run_id": row.run_id,
        "ticket_id": row.ticket_id,
        "action_hash": row.action_hash,
        "reviewer_id": row.reviewer_id,
        "reason": row.reason,
        "order_id": row.order_id,
        "amount_minor": row.amount_minor,
        "currency": row.currency,
        "refund_id": row.refund_id,
        "decided_at": _moment(row.decided_at),
        "recorded_at": _moment(row.recorded_at),
    }


def action_digest(action: str) -> str:
    return hashlib.sha256(action.encode()).hexdigest()


def hashed_fields(row: DecisionRow) -> str:
    """The exact text the row's hash covers after `prev_hash` and a newline: the RFC 8785
    JSON of `row_fields`. Exports carry it, so anyone can recompute the chain."""
    return rfc8785.dumps(row_fields(row)).decode()


def row_hash(prev_hash: str, row: DecisionRow) -> str:
    return hashlib.sha256(prev_hash.encode() + b"\n" + rfc8785.dumps(row_fields(row))).hexdigest()


@dataclass(frozen=True)
class BrokenLink:
    """The first row of a tenant's chain that does not hold, and why."""

    row_id: int
    tenant_id: str
    seq: int
    decided_at: datetime
    why: str


@dataclass(frozen=True)
class ChainHead:
    """Where a tenant's chain ended when it was read: its newest row's seq and hash."""

    tenant_id: str
    seq: int
    row_hash: str


@dataclass(frozen=True)
class ChainReport:
    rows: Mapping[str, int] = field(default_factory=dict)  # per tenant
    heads: Mapping[str, str] = field(default_factory=dict)  # the newest row_hash per tenant
    head_seqs: Mapping[str, int] = field(default_factory=dict)  # and its seq
    broken: tuple[BrokenLink, ...] = ()

    @property
    def intact(self) -> bool:
        return not self.broken

    def chain_heads(self) -> list[ChainHead]:
        """The head of each tenant's chain, up to its first broken row if it has one."""
        return [
            ChainHead(tenant, self.head_seqs[tenant], row_hash)
            for tenant, row_hash in sorted(self.heads.items())
        ]


def _why_broken(row: DecisionRow, expected_seq: int, prev: str) -> str | None:
    if row.seq != expected_seq:
        return (
            f"its sequence number is {row.seq} where {expected_seq} was expected: a row "
            "before it was deleted or renumbered"
        )
    if row.prev_hash != prev:
        return "its prev_hash is not the hash of the row before it: that row was rewritten"
    if row_hash(prev, row) != row.row_hash:
        return "its contents do not match its hash: the row was altered"
    return None


def verify_chain(engine: Engine, tenant_id: str | None = None) -> ChainReport:
    """Walk every chain (or one tenant's) and report the first broken row of each."""
    rows: dict[str, int] = {}
    heads: dict[str, str] = {}
    head_seqs: dict[str, int] = {}
    broken: list[BrokenLink] = []
    query = select(DecisionRow).order_by(DecisionRow.tenant_id, DecisionRow.seq, DecisionRow.id)
    if tenant_id is not None:
        query = query.where(DecisionRow.tenant_id == tenant_id)
    broken_tenants: set[str] = set()
    expected: dict[str, tuple[int, str]] = {}
    with use_session(engine) as session:
        for row in session.scalars(query.execution_options(yield_per=VERIFY_BATCH_ROWS)):
            tenant = row.tenant_id
            rows[tenant] = rows.get(tenant, 0) + 1
            if tenant in broken_tenants:
                continue
            seq, prev = expected.get(tenant, (1, GENESIS))
            why = _why_broken(row, seq, prev)
            if why is not None:
                broken_tenants.add(tenant)
                broken.append(BrokenLink(row.id, tenant, row.seq, row.decided_at, why))
                continue
            expected[tenant] = (seq + 1, row.row_hash)
            heads[tenant] = row.row_hash
            head_seqs[tenant] = row.seq
    return ChainReport(rows, heads, head_seqs, tuple(broken))
