"""Reading the decision audit, for every face: pages of it, all of it (CSV), and the
check of its hash chain.

The audit lives in the store (append-only `decisions` table, hash-chained per tenant);
this is the boundary the faces read it through.
"""

from __future__ import annotations

from activities.store.audit_proofs import (
    NoKeysToCheck,
    ProofReport,
    UnprovenDecision,
    unproven_decisions,
)
from activities.store.decision_chain import ChainReport, hashed_fields, verify_chain
from activities.store.decision_queries import AuditPage, AuditQuery, audit_page, audit_rows
from activities.store.decisions import AUDIT_KINDS

__all__ = [
    "AUDIT_KINDS",
    "AuditPage",
    "AuditQuery",
    "ChainReport",
    "NoKeysToCheck",
    "ProofReport",
    "UnprovenDecision",
    "unproven_decisions",
    "audit_page",
    "audit_rows",
    "hashed_fields",
    "verify_chain",
]
