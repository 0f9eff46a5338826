"""Reading the decision audit, for every face: pages of it, all of it (CSV), and the
check of its hash chain.

The audit lives in the store (append-only `decisions` table, hash-chained per tenant);
this is the boundary the faces read it through.
"""

from __future__ import annotations

from activities.store import audit_proofs, decision_chain, decision_queries
from activities.store.audit_proofs import (
    NoKeysToCheck,
    ProofReport,
    UnprovenDecision,
)
from activities.store.decision_chain import ChainReport, hashed_fields
from activities.store.decision_queries import AuditPage, AuditQuery
from activities.store.decisions import AUDIT_KINDS
from signoff.service.handles import on_store

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

# The store layer's calls, each taking the face's Store (handles.py).
unproven_decisions = on_store(audit_proofs.unproven_decisions)
audit_page = on_store(decision_queries.audit_page)
audit_rows = on_store(decision_queries.audit_rows)
verify_chain = on_store(decision_chain.verify_chain)
